# North in a container: `docker build -t north .`, then in a repository
#   docker run --rm -it -v "$PWD:/workspace" -e ANTHROPIC_API_KEY north
# Debian slim rather than Alpine: Node's glibc builds are its tier-1 platform
# (musl builds are experimental), and Debian packages ripgrep, git and
# bubblewrap (the shell sandbox) just as North's CI installs them.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# Unpack what `npm pack` ships (package.json "files": bin, dist without source
# maps, LICENSE, README): the final stage copies from there and nothing else.
RUN npm run build \
    && npm pack --ignore-scripts --pack-destination /tmp \
    && mkdir /north \
    && tar -xzf /tmp/north-agent-*.tgz -C /north --strip-components=1

FROM node:20-bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ripgrep bubblewrap \
    && rm -rf /var/lib/apt/lists/*
# dist/ bundles every dependency but one: the pseudo-terminal library that tty
# background processes run in (`shell_run` with `tty: true`) is native code,
# North's optional dependency, installed here for the image's own platform
# (linux-x64 on amd64) at the exact version package.json pins, then checked by
# running a program in a pty, so a broken binary fails the build.
COPY --from=build /north/package.json /north/LICENSE /opt/north/
RUN cd /opt/north \
    && npm install --omit=dev --no-package-lock --no-audit --no-fund --ignore-scripts \
    && node -e 'require("@lydell/node-pty").spawn("true", [], {}).onExit((e) => process.exit(e.exitCode))' \
    && npm cache clean --force
COPY --from=build /north/bin /opt/north/bin
COPY --from=build /north/dist /opt/north/dist
# The mounted repository belongs to the host's user, not to `node`; without
# this git refuses it ("dubious ownership") and `hotfiles` loses its history.
RUN chmod 755 /opt/north/bin/north.js \
    && ln -s /opt/north/bin/north.js /usr/local/bin/north \
    && git config --system --add safe.directory '*'
USER node
WORKDIR /workspace
ENTRYPOINT ["north"]
