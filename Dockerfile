# syntax=docker/dockerfile:1
# Build a static rocefab binary and ship it on a minimal base image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath \
      -ldflags="-s -w -X github.com/rocefab/rocefab/agent/cli.version=${VERSION}" \
      -o /out/rocefab ./cmd/rocefab

# distroless/static has CA certificates and a nonroot user, and no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/rocefab /usr/local/bin/rocefab
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/rocefab"]
CMD ["--help"]
