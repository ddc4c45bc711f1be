package io.softcmi.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * {@code cmid --metrics HOST:PORT}: the node's figures as Prometheus text (exposition format
 * 0.0.4) at {@code /metrics}, over the JDK's own HTTP server on one virtual-thread-per-request
 * executor. What it serves is {@link NodeMetricsText}. Off unless asked for.
 */
final class MetricsServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("io.softcmi.node");
    private final HttpServer server;

    MetricsServer(String host, int port, NodeEngine engine) throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 16);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/metrics", exchange -> serve(exchange, engine));
        server.start();
        LOG.log(Level.INFO, "metrics at http://{0}:{1,number,#}/metrics", host, port());
    }

    /** @return the port it listens on */
    int port() {
        return server.getAddress().getPort();
    }

    private static void serve(HttpExchange exchange, NodeEngine engine) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = NodeMetricsText.render(engine).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
