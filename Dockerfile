FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY config config
COPY catalog catalog
COPY planner planner
RUN pip install --no-cache-dir .
COPY . .
# collectstatic needs settings but no secrets worth keeping: use a build-only key.
RUN DJANGO_SECRET_KEY=build-only-not-a-secret-collectstatic-only ALLOWED_HOSTS=localhost python manage.py collectstatic --no-input
RUN useradd --create-home flopfit && mkdir -p var && chown -R flopfit var
USER flopfit
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
