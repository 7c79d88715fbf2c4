# hpa-webhook container image: built with the workspace's pinned toolchain and lockfile, run
# from a distroless image (no shell, no package manager) as a non-root user.
#
#   docker build -t ghcr.io/hpa-toolkit/hpa-webhook:0.1.0 .

FROM rust:1.95-bookworm AS build
WORKDIR /src
# Cargo needs every workspace member's manifest; sources outside the webhook's dependency
# tree are small.
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p hpa-webhook \
 && install -D -m 0755 target/release/hpa-webhook /out/hpa-webhook

# glibc (bookworm = Debian 12, like the build stage), CA roots, tzdata; user 65532 "nonroot".
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/hpa-webhook /usr/local/bin/hpa-webhook
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/hpa-webhook"]
CMD ["serve"]
