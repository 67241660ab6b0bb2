# Builds snapboard-server in a Swift image and runs it in the slim Swift runtime image.
# No Docker engine runs on the project's build machines, so this file is not exercised by CI.
FROM swift:6.1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libwebsockets-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product snapboard-server \
    && cp "$(swift build -c release --show-bin-path)/snapboard-server" /usr/local/bin/ \
    && cp -R "$(swift build -c release --show-bin-path)/Snapboard_SnapboardServer.resources" /usr/local/bin/

FROM swift:6.1-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libwebsockets17 libwebsockets-evlib-ev libsqlite3-0 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/snapboard-server /usr/local/bin/snapboard-server
# The browser client's files: the server finds them beside its binary.
COPY --from=build /usr/local/bin/Snapboard_SnapboardServer.resources /usr/local/bin/Snapboard_SnapboardServer.resources
ENV SNAPBOARD_HOST=0.0.0.0 SNAPBOARD_PORT=8080
EXPOSE 8080
ENTRYPOINT ["snapboard-server"]
