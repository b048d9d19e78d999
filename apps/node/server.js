'use strict';
/*
 * The serverbench endpoint contract on Node's own http module: the cross-language yardstick.
 *
 *   node server.js --host 127.0.0.1 --port 8000 [--workers 2]
 *
 * One process by default; with --workers N > 1 Node's cluster module forks N workers that share
 * the listening socket.  Backends come from the same environment the Python apps read:
 * SERVERBENCH_REDIS_URL (the official `redis` client), SERVERBENCH_MONGO_URL (the official
 * `mongodb` driver), SERVERBENCH_UPSTREAM_URL (http.get through one kept-alive http.Agent).
 * Clients are made on first use, once per process.  The test knobs SERVERBENCH_BURN_US,
 * SERVERBENCH_DELAY_US and SERVERBENCH_WORK_ITERS behave as in apps/injected_work.py and the
 * Python apps' middleware.  Dependencies: `npm ci --prefix apps/node`.
 */
const cluster = require('node:cluster');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { parseArgs } = require('node:util');

const COUNTER_KEY = 'serverbench:counter';
const VALUE_KEY = 'serverbench:value';
const MONGO_DB = 'serverbench';
const EVENT_QUEUES = ['0', '1k', '64k'];
const MAX_SLEEP_MS = 10000;
const SERVER_HEADER = `node/${process.versions.node}`;
const STATIC_DIR = path.join(__dirname, '..', 'static');
const STATIC_TYPES = { '.css': 'text/css', '.js': 'application/javascript' };
const WORK_HEADER = 'X-Serverbench-Work';
const WORK_MASK = (1 << 30) - 1;

function workIterations(value) {
  if (value === undefined) return 0;
  if (!/^[0-9]+$/.test(value)) {
    throw new Error(`SERVERBENCH_WORK_ITERS=${JSON.stringify(value)} is not a whole number >= 0: set it to the `
      + 'loop iterations each request runs (e.g. SERVERBENCH_WORK_ITERS=1000), or unset it for none');
  }
  return Number(value);
}

const ITERS = workIterations(process.env.SERVERBENCH_WORK_ITERS);
const KNOBS = 'SERVERBENCH_BURN_US' in process.env || 'SERVERBENCH_DELAY_US' in process.env;
const BURN_US = Number(process.env.SERVERBENCH_BURN_US || 0);
const DELAY_MS = Number(process.env.SERVERBENCH_DELAY_US || 0) / 1000;

// ---- the book site (apps/sitedata.py, byte for byte) ----

const WORDS = ['python', 'gevent', 'thread', 'event', 'loop', 'socket', 'worker', 'async', 'redis', 'mongo',
  'nginx', 'proxy', 'cache', 'queue', 'lock', 'greenlet', 'reactor', 'signal', 'buffer', 'stream'];
const BOOKS = WORDS.map((word, i) => ({
  id: i + 1,
  title: `Book ${String(i + 1).padStart(2, '0')}: ${word[0].toUpperCase()}${word.slice(1)} and the Server`,
  author: `Author ${(i + 1) % 7}`,
  year: 1991 + i,
}));

function escapeHtml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
}

function matches(q) {
  const needle = (q || '').toLowerCase();
  return BOOKS.filter((b) => b.title.toLowerCase().includes(needle));
}

function searchPage(q, page) {
  const items = matches(q).slice((page - 1) * 5, page * 5).map((b) => `<li><a href="/site/covers/${b.id}.jpg">`
    + `<img src="/site/thumbs/${b.id}.jpg"></a> ${escapeHtml(b.title)} (${b.year})</li>`).join('');
  return `<!doctype html><html><head><title>Search: ${escapeHtml(q)}</title>`
    + '<link rel="stylesheet" href="/site/static/site.css"><script src="/site/static/site.js"></script>'
    + `</head><body><h1>Results for ${escapeHtml(q)}, page ${page}</h1><ul>${items}</ul></body></html>`;
}

function booksJson(q) {
  // Python's json.dumps separators (", " and ": "), so the body matches the Python apps' byte for byte.
  return `[${matches(q).map((b) => `{"id": ${b.id}, "title": ${JSON.stringify(b.title)}, `
    + `"author": ${JSON.stringify(b.author)}, "year": ${b.year}}`).join(', ')}]`;
}

function image(kind, book, size) {
  if (!(book >= 1 && book <= BOOKS.length)) return null;
  const seed = crypto.createHash('sha256').update(`${kind}-${book}`).digest();
  const body = Buffer.alloc(size - 4);
  for (let at = 0; at < body.length; at += seed.length) seed.copy(body, at);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), body, Buffer.from([0xff, 0xd9])]);
}

function staticFile(name) {
  const type = STATIC_TYPES[path.extname(name)];
  const file = path.join(STATIC_DIR, path.basename(name));
  if (type === undefined || !fs.existsSync(file) || !fs.statSync(file).isFile()) return null;
  return [type, fs.readFileSync(file)];
}

// ---- backends: made on first use, once per process ----

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function needEnv(name, what) {
  const url = process.env[name];
  if (!url) throw new HttpError(500, `${name} is not set: ${what}`);
  return url;
}

let redisClient = null;
function redis() {
  if (redisClient === null) {
    const { createClient } = require('redis');
    const client = createClient({ url: needEnv('SERVERBENCH_REDIS_URL', '/redis needs a Redis server') });
    client.on('error', (err) => console.error(`redis: ${err.message}`));
    redisClient = client.connect().then(() => client);
    redisClient.catch(() => { redisClient = null; });
  }
  return redisClient;
}

let mongoDb = null;
function mongo() {
  if (mongoDb === null) {
    const { MongoClient } = require('mongodb');
    mongoDb = new MongoClient(needEnv('SERVERBENCH_MONGO_URL', 'this endpoint needs MongoDB')).db(MONGO_DB);
  }
  return mongoDb;
}

// Kept alive so each /upstream call reuses a connection, as the Python apps' client sessions do.
const upstreamAgent = new http.Agent({ keepAlive: true });

function getJson(url) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: upstreamAgent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        if (res.statusCode < 200 || res.statusCode >= 300) {
          reject(new Error(`upstream ${url} answered ${res.statusCode}`));
          return;
        }
        try {
          resolve(JSON.parse(Buffer.concat(chunks)));
        } catch (err) {
          reject(err);
        }
      });
    }).on('error', reject);
  });
}

// ---- the endpoints: each returns [status, content type, body] ----

const json = (value) => [200, 'application/json', JSON.stringify(value)];

async function redisEndpoint() {
  const client = await redis();
  const [counter, value] = await client.multi().incr(COUNTER_KEY).get(VALUE_KEY).execAsPipeline();
  return json({ counter, value });
}

async function mongoDoc(id) {
  const doc = await mongo().collection('docs').findOne({ _id: id }, { projection: { _id: 0 } });
  if (doc === null) throw new HttpError(500, `no document '${id}' in ${MONGO_DB}.docs: is MongoDB seeded?`);
  return json(doc);
}

async function eventsEndpoint(query) {
  const size = query.get('size');
  if (!EVENT_QUEUES.includes(size)) throw new HttpError(400, `size must be one of ${EVENT_QUEUES.join(', ')}`);
  const rows = await mongo().collection('events').find({ queue: size }, { projection: { _id: 0, queue: 0 } })
    .sort({ seq: 1 }).toArray();
  return rows.length === 0 ? [204, null, ''] : json(rows);
}

async function upstreamEndpoint() {
  const body = await getJson(needEnv('SERVERBENCH_UPSTREAM_URL', '/upstream needs an upstream'));
  return json({ upstream: body });
}

async function sleepEndpoint(query) {
  const text = (query.get('ms') || '').trim();
  const ms = /^[+-]?[0-9]+$/.test(text) ? Number(text) : -1;
  if (!(ms >= 0 && ms <= MAX_SLEEP_MS)) throw new HttpError(400, `ms must be an integer from 0 to ${MAX_SLEEP_MS}`);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return json({ slept_ms: ms });
}

function siteSearch(query) {
  const text = query.get('page') || '1';
  const page = /^[+-]?[0-9]+$/.test(text.trim()) ? Number(text) : 0;
  if (page < 1) throw new HttpError(400, 'page must be an integer >= 1');
  return [200, 'text/html', searchPage(query.get('q') || '', page)];
}

const ROUTES = {
  '/plaintext': () => [200, 'text/plain', 'Hello, World!'],
  '/json': () => json({ message: 'Hello, World!' }),
  '/redis': redisEndpoint,
  '/mongo/small': () => mongoDoc('small'),
  '/mongo/big': () => mongoDoc('big'),
  '/events': eventsEndpoint,
  '/upstream': upstreamEndpoint,
  '/sleep': sleepEndpoint,
  '/site/search': siteSearch,
  '/site/api/books': (query) => [200, 'application/json', booksJson(query.get('q') || '')],
};
const IMAGE_RE = /^\/site\/(covers|thumbs)\/([0-9]+)\.jpg$/;
const IMAGE_SIZES = { covers: ['cover', 30000], thumbs: ['thumb', 3000] };

function route(pathname, query) {
  const handler = ROUTES[pathname];
  if (handler !== undefined) return handler(query);
  const img = IMAGE_RE.exec(pathname);
  if (img !== null) {
    const [kind, size] = IMAGE_SIZES[img[1]];
    const body = image(kind, Number(img[2]), size);
    if (body !== null) return [200, 'image/jpeg', body];
  } else if (pathname.startsWith('/site/static/') && !pathname.slice(13).includes('/')) {
    const found = staticFile(decodeURIComponent(pathname.slice(13)));
    if (found !== null) return [200, found[0], found[1]];
  }
  throw new HttpError(404, 'Not Found');
}

function work(iters) {
  let total = 0;
  for (let i = 0; i < iters; i += 1) total = (total + i) & WORK_MASK;
  return `${iters} ${total}`;
}

async function knobs() {
  const start = process.cpuUsage();
  while (true) {
    const used = process.cpuUsage(start);
    if (used.user + used.system >= BURN_US) break;
  }
  if (DELAY_MS) await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
}

async function handle(req, res) {
  let status; let type; let body;
  try {
    if (KNOBS) await knobs();
    const url = new URL(req.url, 'http://localhost');
    [status, type, body] = await route(url.pathname, url.searchParams);
  } catch (err) {
    status = err instanceof HttpError ? err.status : 500;
    type = 'text/plain';
    body = err instanceof HttpError ? err.message : `${err.name}: ${err.message}`;
  }
  const headers = { Server: SERVER_HEADER };
  if (type !== null) {
    headers['Content-Type'] = type.startsWith('text/') || type === 'application/javascript'
      ? `${type}; charset=utf-8` : type;
    headers['Content-Length'] = Buffer.byteLength(body);
  }
  if (ITERS) headers[WORK_HEADER] = work(ITERS);
  res.writeHead(status, headers);
  res.end(body);
}

function serve(host, port) {
  // A failure after the answer began (never expected) closes that connection instead of ending the process.
  const server = http.createServer((req, res) => handle(req, res).catch((err) => {
    console.error(err);
    res.destroy();
  }));
  // Idle kept-alive connections outlive a pause between trials (Node's default closes them after 5 s).
  server.keepAliveTimeout = 75000;
  server.headersTimeout = 80000;
  server.listen({ host, port, backlog: 2048 });
}

function checkInstalled() {
  for (const dependency of ['redis', 'mongodb']) {
    try {
      require.resolve(dependency);
    } catch (err) {
      throw new Error(`the ${dependency} package is not installed in ${__dirname}/node_modules: `
        + 'run `npm ci --prefix apps/node` in the project folder');
    }
  }
}

function main() {
  checkInstalled();
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8000' },
      workers: { type: 'string', default: '1' },
    },
  });
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) {
    throw new Error(`--workers ${values.workers} is not a whole number >= 1`);
  }
  if (workers > 1 && cluster.isPrimary) {
    for (let i = 0; i < workers; i += 1) cluster.fork();
    // A dead worker ends the server, so the harness sees it die instead of measuring fewer workers.
    cluster.on('exit', (worker, code, signal) => {
      console.error(`worker ${worker.process.pid} exited (${signal || code}): stopping`);
      process.exit(1);
    });
    return;
  }
  serve(values.host, Number(values.port));
}

main();
