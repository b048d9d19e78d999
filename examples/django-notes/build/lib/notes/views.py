"""Three views: the notes as an HTML page, as a JSON list, and a POST that validates a new note."""
import json

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

NOTES = [
    {"id": 1, "title": "Read the gunicorn docs", "body": "Workers, threads, keep-alive."},
    {"id": 2, "title": "Measure before tuning", "body": "pytest -m perf"},
    {"id": 3, "title": "Water the plants", "body": "Thursday."},
]


@require_GET
def page(request):
    return render(request, "notes/index.html", {"notes": NOTES})


@csrf_exempt  # a JSON API for non-browser clients
@require_http_methods(["GET", "POST"])
def api(request):
    if request.method == "GET":
        return JsonResponse({"notes": NOTES})
    try:
        note = json.loads(request.body)
    except ValueError:
        return JsonResponse({"error": "the body is not JSON"}, status=400)
    if not isinstance(note, dict) or not all(isinstance(note.get(k), str) and note[k] for k in ("title", "body")):
        return JsonResponse({"error": 'expected {"title": "...", "body": "..."}'}, status=400)
    return JsonResponse({"id": len(NOTES) + 1, "title": note["title"], "body": note["body"]}, status=201)
