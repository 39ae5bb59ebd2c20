# syntax=docker/dockerfile:1
# Ringside as a container image. Build: `docker build -t ringside .`; run: docs/operations.md, "Deploying".
# The image holds no token: DISCORD_TOKEN (and every other setting) comes from the environment when
# the container starts (`--env-file .env`, or compose's `env_file`); .dockerignore keeps .env out of
# the build context.

# Build stage: the package (not editable) and its dependencies in a virtual environment. Every
# dependency ships wheels for this Python, so no compiler is needed.
FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/ringside
WORKDIR /src
COPY . .
RUN /opt/ringside/bin/pip install --no-cache-dir .

# Run stage: the same base image (the environment's python links to it), the environment alone, an
# unprivileged user.
FROM python:3.11-slim
RUN groupadd --system --gid 10001 ringside \
    && useradd --system --uid 10001 --gid ringside --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin ringside \
    && mkdir /data \
    && chown ringside:ringside /data
COPY --from=build /opt/ringside /opt/ringside
# DATABASE: the SQLite file, in the volume. For PostgreSQL set DATABASE_URL and DATABASE= (empty):
# the bot refuses both at once (compose.yaml does this).
ENV PATH=/opt/ringside/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DATABASE=/data/ringside.sqlite3
WORKDIR /data
VOLUME ["/data"]
# The Prometheus endpoint (/metrics) is opt-in: nothing listens unless METRICS_PORT is set. This is
# the port to set it to (`-e METRICS_PORT=9108 -p 9108:9108`); another port works, publish that one.
EXPOSE 9108
USER 10001:10001
# The bot drains on SIGTERM for at most 15 s: stop it with a longer grace (`docker stop -t 30`;
# compose.yaml sets stop_grace_period).
STOPSIGNAL SIGTERM
# With METRICS_PORT set, healthy means /metrics answers. Without it there is nothing to probe and
# the check passes: the container runs exactly as long as the bot does (restart policies act on exit).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; p = os.environ.get('METRICS_PORT', '').strip(); p and u.urlopen(f'http://127.0.0.1:{p}/metrics', timeout=4).close()"]
CMD ["python", "-m", "bot"]
