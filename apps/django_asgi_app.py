"""The endpoint contract as a single-file Django project (ASGI, async views).

The workloads' work (Redis, MongoDB, the upstream through one aiohttp.ClientSession, the sleep) is
async_workloads'; this module routes the requests to it and shapes the answers the Django way.  The
clients are created once on first use inside the server's event loop.  Django has no lifespan (no
shutdown hook), so they live as long as the process.

Served with any ASGI server as ``django_asgi_app:application`` (the WSGI variant is django_app.py).
"""

import async_workloads
import injected_work
import sitedata
from django.conf import settings

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost", "::1", "[::1]"],
    # Nothing is signed; but Django 4.2 (the PyPy 3.9 env) builds the admin error report for every 5xx and that
    # reads SECRET_KEY: without one, a 500 (e.g. a backend URL not set) became a bare "Internal Server Error".
    SECRET_KEY="serverbench-reference-app-not-secret",
    ROOT_URLCONF=__name__,
    # CommonMiddleware sets Content-Length (else the server falls back to chunked framing) and checks ALLOWED_HOSTS.
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"]
    + ([f"{__name__}.per_request_middleware"] if injected_work.PER_REQUEST else [])
    + ([f"{__name__}.work_middleware"] if injected_work.ITERS else []),
)

from django.core.asgi import get_asgi_application  # noqa: E402  (needs settings)
from django.http import Http404, HttpResponse, JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.utils.decorators import async_only_middleware  # noqa: E402

# The process's workloads and their clients; a refusal raises async_workloads.Refused, answered by _refusals.
work = async_workloads.AsyncWorkloads()


@async_only_middleware
def per_request_middleware(get_response):
    """The burn and leak knobs (installed only when one is set)."""

    async def middleware(request):
        injected_work.per_request()
        return await get_response(request)

    return middleware


@async_only_middleware
def work_middleware(get_response):
    async def middleware(request):
        response = await get_response(request)
        response[injected_work.HEADER] = injected_work.run()
        return response

    return middleware


async def close_clients():
    """Close the clients made on first use.  Django's ASGI handler has no lifespan, so a server's process just
    exits with them; a process that outlives the app (the in-process handler benchmarks) calls this."""
    await work.close()


def _refusals(view):
    """The workload views: a refusal becomes a plain-text response with its status (Django has no exception
    for an arbitrary status)."""

    async def answer(request, *args, **kwargs):
        try:
            return await view(request, *args, **kwargs)
        except async_workloads.Refused as exc:
            return HttpResponse(exc.text, status=exc.status, content_type="text/plain")

    return answer


async def plaintext(request):
    return HttpResponse(b"Hello, World!", content_type="text/plain")


async def json_endpoint(request):
    return JsonResponse({"message": "Hello, World!"})


@_refusals
async def redis_endpoint(request):
    return JsonResponse(await work.redis())


@_refusals
async def mongo_doc(request, doc_id):
    return JsonResponse(await work.mongo_doc(doc_id))


@_refusals
async def events(request):
    rows = await work.events(request.GET.get("size"))
    if not rows:
        response = HttpResponse(status=204)
        del response["Content-Type"]  # no body, nothing to type (as HttpResponseNotModified does)
        return response
    return JsonResponse(rows, safe=False)


@_refusals
async def upstream(request):
    return JsonResponse(await work.upstream())


@_refusals
async def sleep(request):
    return JsonResponse(await work.sleep(request.GET.get("ms")))


@_refusals
async def site_search(request):
    page = work.page(request.GET.get("page"))
    return HttpResponse(sitedata.search_page(request.GET.get("q", ""), page), content_type="text/html")


async def site_books(request):
    return HttpResponse(sitedata.books_json(request.GET.get("q", "")), content_type="application/json")


async def site_image(request, n, make):
    body = make(n)
    if body is None:
        raise Http404
    return HttpResponse(body, content_type="image/jpeg")


async def site_static(request, name):
    found = sitedata.static(name)
    if found is None:
        raise Http404
    content_type, body = found
    return HttpResponse(body, content_type=content_type)


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
    path("site/api/books", site_books),
    path("site/covers/<int:n>.jpg", site_image, {"make": sitedata.cover}),
    path("site/thumbs/<int:n>.jpg", site_image, {"make": sitedata.thumb}),
    path("site/static/<str:name>", site_static),
]

application = get_asgi_application()
