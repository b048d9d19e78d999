package serverbench;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Projections.excludeId;
import static com.mongodb.client.model.Projections.exclude;
import static com.mongodb.client.model.Projections.fields;
import static com.mongodb.client.model.Sorts.ascending;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.bson.Document;
import play.Application;
import play.ApplicationLoader;
import play.BuiltInComponentsFromContext;
import play.libs.Json;
import play.mvc.EssentialFilter;
import play.mvc.Http;
import play.mvc.Result;
import play.mvc.Results;
import play.routing.Router;
import play.routing.RoutingDsl;

/**
 * Part of the serverbench endpoint contract on Play (Java API, Pekko HTTP server): /plaintext, /json,
 * /sleep, /mongo/small, /mongo/big and /events.  Loaded by Play's own production launcher
 * (play.core.server.ProdServerStart) through play.application.loader; routes are declared with the
 * RoutingDsl, so no sbt routes compiler is needed.  MongoDB: the official synchronous driver
 * (SERVERBENCH_MONGO_URL), its blocking calls run on a thread pool of their own, as Play asks.
 * SERVERBENCH_WORK_ITERS adds the same loop and X-Serverbench-Work header as apps/injected_work.py.
 */
public class PlayLoader implements ApplicationLoader {
    static final String MONGO_DB = "serverbench";
    static final Set<String> EVENT_QUEUES = Set.of("0", "1k", "64k");
    static final int MAX_SLEEP_MS = 10_000;
    static final String SERVER = "play";
    static final String WORK_HEADER = "X-Serverbench-Work";
    static final long ITERS = workIterations(System.getenv("SERVERBENCH_WORK_ITERS"));

    static long workIterations(String value) {
        if (value == null) {
            return 0;
        }
        if (!value.matches("[0-9]+")) {
            throw new IllegalArgumentException("SERVERBENCH_WORK_ITERS='" + value + "' is not a whole number >= 0: "
                + "set it to the loop iterations each request runs (e.g. SERVERBENCH_WORK_ITERS=1000), or unset it");
        }
        return Long.parseLong(value);
    }

    static String work(long iters) {
        long total = 0;
        for (long i = 0; i < iters; i++) {
            total = (total + i) & ((1L << 30) - 1);
        }
        return iters + " " + total;
    }

    @Override
    public Application load(Context context) {
        return new Components(context).application();
    }

    static class Components extends BuiltInComponentsFromContext {
        private final ExecutorService blocking = Executors.newFixedThreadPool(64);
        private volatile MongoDatabase mongo;

        Components(Context context) {
            super(context);
            applicationLifecycle().addStopHook(() -> {
                blocking.shutdownNow();
                return CompletableFuture.completedFuture(null);
            });
        }

        @Override
        public List<EssentialFilter> httpFilters() {
            return List.of();
        }

        @Override
        public Router router() {
            return RoutingDsl.fromComponents(this)
                .GET("/plaintext").routingTo(request -> served(Results.ok("Hello, World!")))
                .GET("/json").routingTo(request -> served(Results.ok(Json.newObject().put("message", "Hello, World!"))))
                .GET("/sleep").routingAsync(this::sleep)
                .GET("/mongo/small").routingAsync(request -> onPool(() -> document("small")))
                .GET("/mongo/big").routingAsync(request -> onPool(() -> document("big")))
                .GET("/events").routingAsync(request -> onPool(() -> events(request)))
                .build();
        }

        private static Result served(Result result) {
            Result named = result.withHeader("Server", SERVER);
            return ITERS == 0 ? named : named.withHeader(WORK_HEADER, work(ITERS));
        }

        private static Result json(String body) {
            return served(Results.ok(body).as("application/json"));
        }


        private CompletionStage<Result> onPool(Supplier<Result> call) {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return call.get();
                } catch (RuntimeException e) {
                    return served(Results.internalServerError(e.toString()));
                }
            }, blocking);
        }

        private CompletionStage<Result> sleep(Http.Request request) {
            int ms;
            try {
                ms = Integer.parseInt(request.queryString("ms").orElse("").strip());
            } catch (NumberFormatException e) {
                ms = -1;
            }
            if (ms < 0 || ms > MAX_SLEEP_MS) {
                return CompletableFuture.completedFuture(
                    served(Results.badRequest("ms must be an integer from 0 to " + MAX_SLEEP_MS)));
            }
            final int slept = ms;
            return CompletableFuture.supplyAsync(
                () -> json("{\"slept_ms\": " + slept + "}"),
                CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS));
        }

        private MongoDatabase mongo() {
            if (mongo == null) {
                synchronized (this) {
                    if (mongo == null) {
                        String url = System.getenv("SERVERBENCH_MONGO_URL");
                        if (url == null || url.isEmpty()) {
                            throw new IllegalStateException("SERVERBENCH_MONGO_URL is not set: this endpoint needs MongoDB");
                        }
                        MongoClient client = MongoClients.create(url);
                        applicationLifecycle().addStopHook(() -> {
                            client.close();
                            return CompletableFuture.completedFuture(null);
                        });
                        mongo = client.getDatabase(MONGO_DB);
                    }
                }
            }
            return mongo;
        }

        private Result document(String id) {
            Document doc = mongo().getCollection("docs").find(eq("_id", id)).projection(excludeId()).first();
            if (doc == null) {
                return served(Results.internalServerError(
                    "no document '" + id + "' in " + MONGO_DB + ".docs: is MongoDB seeded?"));
            }
            return json(doc.toJson());
        }

        private Result events(Http.Request request) {
            String size = request.queryString("size").orElse("");
            if (!EVENT_QUEUES.contains(size)) {
                return served(Results.badRequest("size must be one of 0, 1k, 64k"));
            }
            List<String> rows = new ArrayList<>();
            for (Document row : mongo().getCollection("events").find(eq("queue", size))
                    .projection(fields(excludeId(), exclude("queue"))).sort(ascending("seq"))) {
                rows.add(row.toJson());
            }
            if (rows.isEmpty()) {
                return served(Results.noContent());
            }
            return json("[" + String.join(", ", rows) + "]");
        }
    }
}
