"""The endpoint contract in Flask (WSGI).

The workloads' work (Redis, MongoDB, the upstream, the sleep) is sync_workloads'; this module routes
the requests to it and shapes the answers the Flask way.  The book site is sitedata's.
"""

import injected_work
import sitedata
import sync_workloads
from flask import Flask, Response, abort, jsonify, request

app = Flask(__name__)
app.json.sort_keys = False
work = sync_workloads.Workloads(refuse=abort)
close_clients = work.close  # the handler benchmarks close the clients made on first use

if injected_work.PER_REQUEST:  # the burn and leak knobs; no hook at all unless one is set

    @app.before_request
    def _per_request():
        injected_work.per_request()


if injected_work.ITERS:  # no hook at all unless the work knob is set

    @app.after_request
    def _work(response):
        response.headers[injected_work.HEADER] = injected_work.run()
        return response


@app.route("/plaintext")
def plaintext():
    return Response(b"Hello, World!", content_type="text/plain")


@app.route("/json")
def json_endpoint():
    return jsonify(message="Hello, World!")


@app.route("/redis")
def redis_endpoint():
    return jsonify(work.redis())


@app.route("/mongo/<any(small, big):doc_id>")
def mongo_doc(doc_id):
    return jsonify(work.mongo_doc(doc_id))


@app.route("/events")
def events():
    found = work.events(request.args.get("size"))
    if not found:
        return "", 204
    return jsonify(found)


@app.route("/upstream")
def upstream():
    return jsonify(work.upstream())


@app.route("/sleep")
def sleep():
    return jsonify(work.sleep(request.args.get("ms")))


@app.route("/site/search")
def site_search():
    page = work.page(request.args.get("page"))
    return Response(sitedata.search_page(request.args.get("q", ""), page), mimetype="text/html")


@app.route("/site/api/books")
def site_api_books():
    return Response(sitedata.books_json(request.args.get("q", "")), mimetype="application/json")


@app.route("/site/covers/<int:n>.jpg")
def site_cover(n):
    data = sitedata.cover(n)
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg")


@app.route("/site/thumbs/<int:n>.jpg")
def site_thumb(n):
    data = sitedata.thumb(n)
    if data is None:
        abort(404)
    return Response(data, mimetype="image/jpeg")


@app.route("/site/static/<name>")
def site_static(name):
    found = sitedata.static(name)
    if found is None:
        abort(404)
    content_type, data = found
    return Response(data, content_type=content_type)
