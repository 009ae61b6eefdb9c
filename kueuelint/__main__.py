from kueuelint.cli import main

raise SystemExit(main())
