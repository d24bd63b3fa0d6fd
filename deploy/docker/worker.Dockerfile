# syntax=docker/dockerfile:1
# ptxfuzz worker for NVIDIA GPUs. Build from the repository root:
#   docker build -f deploy/docker/worker.Dockerfile -t ptxfuzz-worker .
# Run with the NVIDIA container runtime (`docker run --gpus all`, the compose file's device
# reservation, or `nvidia.com/gpu` on Kubernetes): it injects libcuda.so, which the worker
# loads at run time (cudarc `dynamic-loading`); the image carries no driver.

FROM rust:1.95-bookworm AS build
# m4: the workspace builds GMP/MPFR (the `mathlib` crate) from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends m4 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Every workspace member must be present for cargo to read the workspace, even those not built.
COPY Cargo.toml Cargo.lock ./
COPY migrations migrations
COPY api api
COPY ptx ptx
COPY mathlib mathlib
COPY worker worker
COPY service service
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p worker --bin ptxfuzz \
 && install -D -m 0755 target/release/ptxfuzz /out/ptxfuzz

# The CUDA base image: no toolkit, but NVIDIA_VISIBLE_DEVICES / NVIDIA_DRIVER_CAPABILITIES set
# so that the runtime mounts the driver. Ubuntu 24.04's glibc is newer than bookworm's, so the
# binary built above runs here.
FROM nvidia/cuda:12.8.0-base-ubuntu24.04
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /var/lib/ptxfuzz --shell /usr/sbin/nologin ptxfuzz
COPY --from=build /out/ptxfuzz /usr/local/bin/ptxfuzz
USER 10001:10001
# Findings (and anything the worker keeps on disk) go under the working directory: mount a
# volume here so that they survive a restart.
WORKDIR /var/lib/ptxfuzz
VOLUME ["/var/lib/ptxfuzz"]
ENTRYPOINT ["ptxfuzz"]
CMD ["campaign", "--target", "cuda", "--quiet"]
