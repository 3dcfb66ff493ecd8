# syntax=docker/dockerfile:1
ARG PYTHON_VERSION=3.12

FROM python:${PYTHON_VERSION}-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=off
WORKDIR /app

FROM base AS builder
RUN --mount=type=cache,target=/root/.cache/pip \
    pip install --upgrade pip build
COPY pyproject.toml README.md ./
COPY src/ ./src/
RUN python -m build --wheel --outdir /dist

FROM base
LABEL org.opencontainers.image.source="https://github.com/acme/app" \
      org.opencontainers.image.licenses=MIT
RUN groupadd --system app && useradd --system --gid app --home /app app
COPY --from=builder --chown=app:app /dist/*.whl /tmp/
RUN pip install /tmp/*.whl && rm -f /tmp/*.whl
USER app:app
EXPOSE 8000/tcp
HEALTHCHECK --interval=30s --timeout=3s CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://localhost:8000/health')"]
ENTRYPOINT ["gunicorn", "app.wsgi:application"]
CMD ["--bind", "0.0.0.0:8000", "--workers", "4"]
