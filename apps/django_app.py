"""The endpoint contract as a single-file Django project (WSGI).

The workloads' work (Redis, MongoDB, the upstream, the sleep) is sync_workloads'; this module routes
the requests to it and shapes the answers the Django way.  The book site is sitedata's.
Served with any WSGI server as ``django_app:application`` (the ASGI variant is django_asgi_app.py).
"""

import injected_work
import sitedata
import sync_workloads
from django.conf import settings

settings.configure(
    DEBUG=False,
    # Django's 500 handling reads SECRET_KEY; without one a 500 naming a missing backend URL became bare.
    SECRET_KEY="serverbench-reference-app-not-secret",
    ALLOWED_HOSTS=["127.0.0.1", "localhost", "::1", "[::1]"],
    ROOT_URLCONF=__name__,
    # CommonMiddleware sets Content-Length (else the server falls back to chunked framing) and checks ALLOWED_HOSTS.
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"]
    + ([f"{__name__}.per_request_middleware"] if injected_work.PER_REQUEST else [])
    + ([f"{__name__}.work_middleware"] if injected_work.ITERS else []),
)

from django.core.wsgi import get_wsgi_application  # noqa: E402  (needs settings)
from django.http import Http404, HttpResponse, JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402

work = sync_workloads.Workloads()  # a refusal raises sync_workloads.Refused: answered by _refusals
close_clients = work.close  # the handler benchmarks close the clients made on first use


def per_request_middleware(get_response):
    """The burn and leak knobs (installed only when one is set)."""

    def middleware(request):
        injected_work.per_request()
        return get_response(request)

    return middleware


def work_middleware(get_response):
    def middleware(request):
        response = get_response(request)
        response[injected_work.HEADER] = injected_work.run()
        return response

    return middleware


def _refusals(view):
    """The workload views: a refusal becomes a plain-text response with its status (Django has no exception
    for an arbitrary status)."""

    def answer(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except sync_workloads.Refused as exc:
            return HttpResponse(exc.text, status=exc.status, content_type="text/plain")

    return answer


def plaintext(request):
    return HttpResponse(b"Hello, World!", content_type="text/plain")


def json_endpoint(request):
    return JsonResponse({"message": "Hello, World!"})


@_refusals
def redis_endpoint(request):
    return JsonResponse(work.redis())


@_refusals
def mongo_doc(request, doc_id):
    return JsonResponse(work.mongo_doc(doc_id))


@_refusals
def events(request):
    found = work.events(request.GET.get("size"))
    if not found:
        return HttpResponse(status=204)
    return JsonResponse(found, safe=False)


@_refusals
def upstream(request):
    return JsonResponse(work.upstream())


@_refusals
def sleep(request):
    return JsonResponse(work.sleep(request.GET.get("ms")))


@_refusals
def site_search(request):
    page = work.page(request.GET.get("page"))
    return HttpResponse(sitedata.search_page(request.GET.get("q", ""), page), content_type="text/html")


def site_api_books(request):
    return HttpResponse(sitedata.books_json(request.GET.get("q", "")), content_type="application/json")


def site_cover(request, n):
    data = sitedata.cover(n)
    if data is None:
        raise Http404("no such cover")
    return HttpResponse(data, content_type="image/jpeg")


def site_thumb(request, n):
    data = sitedata.thumb(n)
    if data is None:
        raise Http404("no such thumbnail")
    return HttpResponse(data, content_type="image/jpeg")


def site_static(request, name):
    found = sitedata.static(name)
    if found is None:
        raise Http404("no such file")
    content_type, data = found
    return HttpResponse(data, content_type=content_type)


urlpatterns = [
    path("plaintext", plaintext),
    path("json", json_endpoint),
    path("redis", redis_endpoint),
    path("mongo/small", mongo_doc, {"doc_id": "small"}),
    path("mongo/big", mongo_doc, {"doc_id": "big"}),
    path("events", events),
    path("upstream", upstream),
    path("sleep", sleep),
    path("site/search", site_search),
    path("site/api/books", site_api_books),
    path("site/covers/<int:n>.jpg", site_cover),
    path("site/thumbs/<int:n>.jpg", site_thumb),
    path("site/static/<str:name>", site_static),
]

application = get_wsgi_application()
