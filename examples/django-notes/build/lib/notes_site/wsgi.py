"""The WSGI callable every server loads: ``notes_site.wsgi:application``."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "notes_site.settings")
application = get_wsgi_application()
