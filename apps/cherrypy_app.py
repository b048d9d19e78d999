"""The endpoint contract in CherryPy, mounted as a plain WSGI app (CherryPy's engine and server never start).

Served with any WSGI server as ``cherrypy_app:app``.  The workloads' work (Redis, MongoDB, the
upstream, the sleep) is sync_workloads'; this module routes the requests to it and shapes the answers
the CherryPy way.  The book site is sitedata's.
"""

import cherrypy
import injected_work
import sitedata
import sync_workloads


def _refuse(status, text):
    raise cherrypy.HTTPError(status, text)


work = sync_workloads.Workloads(refuse=_refuse)
close_clients = work.close  # the handler benchmarks close the clients made on first use


def _work():
    cherrypy.serving.response.headers[injected_work.HEADER] = injected_work.run()


def _book_number(filename):
    """The book of "<n>.jpg", else 404."""
    stem, dot, ext = filename.rpartition(".")
    try:
        if dot and ext == "jpg":
            return int(stem)
    except ValueError:
        pass
    raise cherrypy.NotFound()


def _image(data):
    if data is None:
        raise cherrypy.NotFound()
    cherrypy.response.headers["Content-Type"] = "image/jpeg"
    return data


class Api:
    @cherrypy.expose
    def books(self, q=""):
        cherrypy.response.headers["Content-Type"] = "application/json"
        return sitedata.books_json(q)


class Site:
    api = Api()

    @cherrypy.expose
    def search(self, q="", page=None):
        page = work.page(page)
        cherrypy.response.headers["Content-Type"] = "text/html"
        return sitedata.search_page(q, page)

    @cherrypy.expose
    def covers(self, filename):
        return _image(sitedata.cover(_book_number(filename)))

    @cherrypy.expose
    def thumbs(self, filename):
        return _image(sitedata.thumb(_book_number(filename)))

    @cherrypy.expose
    def static(self, name):
        found = sitedata.static(name)
        if found is None:
            raise cherrypy.NotFound()
        cherrypy.response.headers["Content-Type"], data = found
        return data


class Root:
    site = Site()

    @cherrypy.expose
    def plaintext(self):
        cherrypy.response.headers["Content-Type"] = "text/plain"
        return b"Hello, World!"

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def json(self):
        return {"message": "Hello, World!"}

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def redis(self):
        return work.redis()

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def mongo(self, doc_id):
        if doc_id not in ("small", "big"):
            raise cherrypy.NotFound()
        return work.mongo_doc(doc_id)

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def events(self, size=None):
        found = work.events(size)
        if not found:
            cherrypy.response.status = 204  # CherryPy drops the body of a 204
            return None
        return found

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def upstream(self):
        return work.upstream()

    @cherrypy.expose
    @cherrypy.tools.json_out()
    def sleep(self, ms=None):
        return work.sleep(ms)


# "embedded": hosted by a foreign WSGI server (no autoreload, no checker, no screen logging, no signal handlers).
cherrypy.config.update({"environment": "embedded"})
config = {}
if injected_work.PER_REQUEST:  # the burn and leak knobs; no hook at all unless one is set
    cherrypy.tools.per_request = cherrypy.Tool("on_start_resource", injected_work.per_request)
    config = {"/": {"tools.per_request.on": True}}
if injected_work.ITERS:  # no hook at all unless the work knob is set
    cherrypy.tools.work = cherrypy.Tool("before_finalize", _work)
    config.setdefault("/", {})["tools.work.on"] = True
app = cherrypy.tree.mount(Root(), "", config)
