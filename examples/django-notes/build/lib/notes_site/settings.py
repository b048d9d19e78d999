"""Settings of the notes site: no database, no sessions; an HTML page and a JSON API."""
import os

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "insecure-example-key")
DEBUG = os.environ.get("DJANGO_DEBUG") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = ["notes"]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
]
ROOT_URLCONF = "notes_site.urls"
WSGI_APPLICATION = "notes_site.wsgi.application"
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}]
DATABASES = {}
USE_TZ = True
