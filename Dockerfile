# kueuelint in a small image: `docker run --rm -v "$PWD:/work" kueuelint check .`
# Build with the release's version (the build context has no git history to read it from):
#   docker build --build-arg KUEUELINT_VERSION="$(git describe --tags | sed 's/^v//')" -t kueuelint .
ARG PYTHON_VERSION=3.12

FROM python:${PYTHON_VERSION}-slim AS build
ARG KUEUELINT_VERSION=0.0.0
WORKDIR /src
COPY . .
# kueuelint and every dependency as wheels, so the final stage needs no compiler and no index
RUN SETUPTOOLS_SCM_PRETEND_VERSION="${KUEUELINT_VERSION}" \
    pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:${PYTHON_VERSION}-slim
ARG KUEUELINT_VERSION=0.0.0
LABEL org.opencontainers.image.title="kueuelint" \
      org.opencontainers.image.description="Policy-as-code linter and dry-admission checker for Kueue manifests" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${KUEUELINT_VERSION}"
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links=/wheels "kueuelint==${KUEUELINT_VERSION}" \
    && useradd --create-home --uid 10001 kueuelint
USER 10001
WORKDIR /work
ENTRYPOINT ["kueuelint"]
CMD ["--help"]
