"""The endpoint contract in Bottle (WSGI).

The workloads' work (Redis, MongoDB, the upstream, the sleep) is sync_workloads'; this module routes
the requests to it and shapes the answers the Bottle way.  The book site is sitedata's.
Served with any WSGI server as ``bottle_app:app``.
"""

import json

import bottle
import injected_work
import sitedata
import sync_workloads

app = bottle.Bottle()
work = sync_workloads.Workloads(refuse=bottle.abort)
close_clients = work.close  # the handler benchmarks close the clients made on first use

if injected_work.PER_REQUEST:  # the burn and leak knobs; no hook at all unless one is set
    app.add_hook("before_request", injected_work.per_request)

if injected_work.ITERS:  # no hook at all unless the work knob is set

    @app.hook("after_request")
    def _work():
        bottle.response.set_header(injected_work.HEADER, injected_work.run())


def _json_list(items):
    """Bottle turns only dicts into JSON by itself: a list is dumped by hand."""
    bottle.response.content_type = "application/json"
    return json.dumps(items)


@app.get("/plaintext")
def plaintext():
    bottle.response.content_type = "text/plain"
    return b"Hello, World!"


@app.get("/json")
def json_endpoint():
    return {"message": "Hello, World!"}


@app.get("/redis")
def redis_endpoint():
    return work.redis()


@app.get("/mongo/<doc_id:re:small|big>")
def mongo_doc(doc_id):
    return work.mongo_doc(doc_id)


@app.get("/events")
def events():
    found = work.events(bottle.request.query.get("size"))
    if not found:
        return bottle.HTTPResponse(status=204)
    return _json_list(found)


@app.get("/upstream")
def upstream():
    return work.upstream()


@app.get("/sleep")
def sleep():
    return work.sleep(bottle.request.query.get("ms"))


@app.get("/site/search")
def site_search():
    page = work.page(bottle.request.query.get("page"))
    bottle.response.content_type = "text/html; charset=utf-8"
    return sitedata.search_page(bottle.request.query.q, page)


@app.get("/site/api/books")
def site_api_books():
    bottle.response.content_type = "application/json"
    return sitedata.books_json(bottle.request.query.q)


@app.get("/site/covers/<n:int>.jpg")
def site_cover(n):
    data = sitedata.cover(n)
    if data is None:
        bottle.abort(404, "no such cover")
    bottle.response.content_type = "image/jpeg"
    return data


@app.get("/site/thumbs/<n:int>.jpg")
def site_thumb(n):
    data = sitedata.thumb(n)
    if data is None:
        bottle.abort(404, "no such thumbnail")
    bottle.response.content_type = "image/jpeg"
    return data


@app.get("/site/static/<name>")
def site_static(name):
    found = sitedata.static(name)
    if found is None:
        bottle.abort(404, "no such file")
    bottle.response.content_type, data = found
    return data
