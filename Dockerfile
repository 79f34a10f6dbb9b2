FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*
# The dependencies first, at the versions and hashes requirements-prod.lock pins (the base
# dependencies, held to the versions the tests ran against; no test tools): this layer is
# rebuilt only when the lock changes. Then flopfit itself, whose dependencies are all there.
COPY requirements-prod.lock ./
RUN pip install --no-cache-dir -r requirements-prod.lock
COPY pyproject.toml README.md ./
COPY config config
COPY catalog catalog
COPY planner planner
RUN pip install --no-cache-dir --no-deps .
COPY . .
# collectstatic needs settings but no secret worth keeping: a random key that lives for this
# one command. Static files get hashed names and gzip/brotli copies for WhiteNoise.
RUN DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    ALLOWED_HOSTS=localhost python manage.py collectstatic --no-input
# The metrics directories exist in the image owned by the app user, so a named volume mounted
# over them starts with that ownership.
RUN useradd --create-home flopfit \
    && mkdir -p var /var/run/flopfit-metrics/web /var/run/flopfit-metrics/worker \
    && chown -R flopfit var /var/run/flopfit-metrics
USER flopfit
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=6s --start-period=20s --retries=3 \
    CMD ["python", "config/healthprobe.py", "/healthz"]
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi"]
