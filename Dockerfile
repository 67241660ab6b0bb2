# snapboard-server in a container: built in the Swift image the project's CI uses (6.3), run in the slim
# Swift runtime image as a non-root user, with its canvases in the volume /data.
#
# The runtime is swift:6.3-bookworm-slim rather than debian:bookworm-slim with --static-swift-stdlib:
# the static build of Foundation is untested here (no Docker engine runs on the project's machines), while
# the slim image carries exactly the Swift runtime the binary was linked against.
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libwebsockets-dev libsqlite3-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies in their own layer: rebuilt only when Package.swift changes.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product snapboard-server \
    && mkdir -p /out \
    && cp "$(swift build -c release --show-bin-path)/snapboard-server" /out/ \
    && cp -R "$(swift build -c release --show-bin-path)/Snapboard_SnapboardWeb.resources" /out/

FROM swift:6.3-bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libwebsockets17 libwebsockets-evlib-ev libsqlite3-0 libpq5 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin snapboard \
    && mkdir -p /data && chown snapboard:snapboard /data
# The server finds the browser client's files beside its binary.
COPY --from=build /out/ /usr/local/bin/
USER 10001
WORKDIR /data
VOLUME ["/data"]
ENV SNAPBOARD_HOST=0.0.0.0 SNAPBOARD_PORT=8080 SNAPBOARD_DATA=/data/snapboard.sqlite
EXPOSE 8080
# The server's own health check: no curl in the image. (A server serving TLS answers only https://.)
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["snapboard-server", "health"]
# Exec form: the server is PID 1 and gets SIGTERM itself, and shuts down gracefully (1001 to everyone).
ENTRYPOINT ["snapboard-server"]
