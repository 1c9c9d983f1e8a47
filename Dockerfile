# Arbiter's container image, for machines with a container engine. It is the image that
# hack/image.sh builds without one: both take the root filesystem from `hack/image.sh --rootfs`
# (the binaries and exactly the libraries they load, a non-root user, no shell).
#
#   docker build -t arbiter:0.1.0 .
#   docker run --rm arbiter:0.1.0 --version
#   docker run --rm --entrypoint /usr/local/bin/arbiter-controller arbiter:0.1.0 --version
FROM debian:bookworm AS build
WORKDIR /src
COPY . .
RUN hack/install-deps.sh --build \
 && cmake --preset release -DARBITER_TESTS=OFF -DARBITER_BENCH=OFF >/dev/null \
 && cmake --build --preset release --target arbiter-scheduler arbiter-controller arbiterctl \
 && hack/image.sh --rootfs /rootfs

FROM scratch
COPY --from=build /rootfs/ /
USER 65532:65532
ENV PATH=/usr/local/bin
WORKDIR /
ENTRYPOINT ["/usr/local/bin/arbiter-scheduler"]
LABEL org.opencontainers.image.title="arbiter" \
      org.opencontainers.image.description="Arbiter: a gang batch scheduler for Kubernetes"
