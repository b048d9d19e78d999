"""The endpoint contract in Pyramid (WSGI).

The workloads' work (Redis, MongoDB, the upstream, the sleep) is sync_workloads'; this module routes
the requests to it and shapes the answers the Pyramid way.  The book site is sitedata's.
Served with any WSGI server as ``pyramid_app:app``.
"""

import injected_work
import sitedata
import sync_workloads
from pyramid.config import Configurator
from pyramid.events import NewRequest, NewResponse
from pyramid.httpexceptions import HTTPNoContent, HTTPNotFound, exception_response
from pyramid.response import Response


def _refuse(status, text):
    raise exception_response(status, detail=text)


work = sync_workloads.Workloads(refuse=_refuse)
close_clients = work.close  # the handler benchmarks close the clients made on first use


def _per_request(event):
    injected_work.per_request()


def _work(event):
    event.response.headers[injected_work.HEADER] = injected_work.run()


def plaintext(request):
    return Response(b"Hello, World!", content_type="text/plain")


def json_endpoint(request):
    return {"message": "Hello, World!"}


def redis_endpoint(request):
    return work.redis()


def mongo_doc(request):
    return work.mongo_doc(request.matchdict["doc_id"])


def events(request):
    found = work.events(request.GET.get("size"))
    if not found:
        return HTTPNoContent()
    return found


def upstream(request):
    return work.upstream()


def sleep(request):
    return work.sleep(request.GET.get("ms"))


def site_search(request):
    page = work.page(request.GET.get("page"))
    return Response(sitedata.search_page(request.GET.get("q", ""), page), content_type="text/html")


def site_api_books(request):
    return Response(sitedata.books_json(request.GET.get("q", "")), content_type="application/json")


def site_cover(request):
    data = sitedata.cover(int(request.matchdict["n"]))
    if data is None:
        raise HTTPNotFound("no such cover")
    return Response(data, content_type="image/jpeg")


def site_thumb(request):
    data = sitedata.thumb(int(request.matchdict["n"]))
    if data is None:
        raise HTTPNotFound("no such thumbnail")
    return Response(data, content_type="image/jpeg")


def site_static(request):
    found = sitedata.static(request.matchdict["name"])
    if found is None:
        raise HTTPNotFound("no such file")
    content_type, data = found
    return Response(data, content_type=content_type)


with Configurator() as config:
    if injected_work.PER_REQUEST:  # the burn and leak knobs; no hook at all unless one is set
        config.add_subscriber(_per_request, NewRequest)
    if injected_work.ITERS:  # no hook at all unless the work knob is set
        config.add_subscriber(_work, NewResponse)
    config.add_route("plaintext", "/plaintext")
    config.add_route("json", "/json")
    config.add_route("redis", "/redis")
    config.add_route("mongo", "/mongo/{doc_id:small|big}")
    config.add_route("events", "/events")
    config.add_route("upstream", "/upstream")
    config.add_route("sleep", "/sleep")
    config.add_route("site_search", "/site/search")
    config.add_route("site_api_books", "/site/api/books")
    config.add_route("site_cover", r"/site/covers/{n:\d+}.jpg")
    config.add_route("site_thumb", r"/site/thumbs/{n:\d+}.jpg")
    config.add_route("site_static", "/site/static/{name}")
    config.add_view(plaintext, route_name="plaintext", request_method="GET")
    config.add_view(json_endpoint, route_name="json", request_method="GET", renderer="json")
    config.add_view(redis_endpoint, route_name="redis", request_method="GET", renderer="json")
    config.add_view(mongo_doc, route_name="mongo", request_method="GET", renderer="json")
    config.add_view(events, route_name="events", request_method="GET", renderer="json")
    config.add_view(upstream, route_name="upstream", request_method="GET", renderer="json")
    config.add_view(sleep, route_name="sleep", request_method="GET", renderer="json")
    config.add_view(site_search, route_name="site_search", request_method="GET")
    config.add_view(site_api_books, route_name="site_api_books", request_method="GET")
    config.add_view(site_cover, route_name="site_cover", request_method="GET")
    config.add_view(site_thumb, route_name="site_thumb", request_method="GET")
    config.add_view(site_static, route_name="site_static", request_method="GET")
    app = config.make_wsgi_app()
