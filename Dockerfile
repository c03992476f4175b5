# syntax=docker/dockerfile:1
#
# ExtendDB: a static binary on distroless/static (no shell, no libc, runs as
# "nonroot"). Build:  docker build -t extenddb .
# Run:                 docker run -p 8000:8000 -v extenddb-data:/data extenddb
# In memory:           docker run -p 8000:8000 extenddb --in-memory

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so source edits do not re-download them.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# CGO_ENABLED=0: a fully static binary (Pebble falls back to pure-Go
# compression without cgo), so the final image needs no libc.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/extenddb ./cmd/extenddb \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/extenddb /usr/local/bin/extenddb
# /data must belong to the non-root user before the volume is created, so a
# new named volume inherits that ownership and Pebble can write to it.
COPY --from=build --chown=nonroot:nonroot /out/data /data
VOLUME /data
EXPOSE 8000
# The image has no shell and no curl: the binary checks itself. If you make
# the server listen on another port, pass the same --addr to healthcheck.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/extenddb", "healthcheck", "--addr", "127.0.0.1:8000"]
# Flags given to `docker run IMAGE ...` are appended: e.g. --in-memory,
# --log-level debug, --transition-delay 2s.
ENTRYPOINT ["/usr/local/bin/extenddb", "serve", "--addr", "0.0.0.0:8000", "--data-dir", "/data"]
