# syntax=docker/dockerfile:1
# ptxfuzz-server: the findings store and API (docs/service.md). Build from the repository root:
#   docker build -f deploy/docker/server.Dockerfile -t ptxfuzz-server .
# The image runs `ptxfuzz-server serve` by default; `migrate` and `token create` are the other
# subcommands (deploy/README.md).

FROM rust:1.95-bookworm AS build
# m4: the workspace builds GMP/MPFR (the `mathlib` crate, through `ptx`) from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends m4 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Every workspace member must be present for cargo to read the workspace, even those not built.
COPY Cargo.toml Cargo.lock ./
COPY .sqlx .sqlx
COPY migrations migrations
COPY api api
COPY ptx ptx
COPY mathlib mathlib
COPY worker worker
COPY service service
# sqlx checks its queries against the committed .sqlx data: no database at build time.
ENV SQLX_OFFLINE=true
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p service --bin ptxfuzz-server \
 && install -D -m 0755 target/release/ptxfuzz-server /out/ptxfuzz-server

FROM debian:bookworm-slim
# ca-certificates: TLS to a managed PostgreSQL. No curl: the health check below uses bash's
# /dev/tcp, which keeps the image small and its package list short.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin ptxfuzz
COPY --from=build /out/ptxfuzz-server /usr/local/bin/ptxfuzz-server
USER 10001:10001
ENV PTXFUZZ_BIND=0.0.0.0:8080 \
    PTXFUZZ_LOG_FORMAT=json
EXPOSE 8080
# GET /healthz over bash's /dev/tcp on the port of PTXFUZZ_BIND: healthy when the status line
# says 200 (the server answers 200 only when PostgreSQL does).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PTXFUZZ_BIND##*:} && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["ptxfuzz-server"]
CMD ["serve"]
