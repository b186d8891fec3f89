package ebbtide.neo4jlauncher;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Starts an in-process Neo4j (Community) server for ebbtide's tests.
 *
 * <p>Protocol with the parent process (tests/neo4j_server.py):
 * <ul>
 *   <li>stdout carries exactly one line, {@code BOLT bolt://127.0.0.1:PORT}, once the server accepts
 *       Bolt connections; everything else (Neo4j, Log4j, JVM noise) goes to stderr or to log files
 *       under the working directory.</li>
 *   <li>The server shuts down when stdin reaches end-of-file (the parent closed the pipe or died)
 *       or on SIGTERM/SIGINT. Exit code 0 after a clean shutdown, 2 for bad arguments, 1 if start
 *       failed.</li>
 * </ul>
 *
 * <p>Options: {@code --work-dir DIR} (parent of the server's random data folder, default a new temp
 * dir), {@code --port N} (Bolt port on 127.0.0.1, default 0 = any free port),
 * {@code --pagecache-mb N} (default 32), {@code --ignore-stdin} (only stop on a signal).
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        // Keep the real stdout for the protocol line only; route anything printed by libraries to stderr.
        PrintStream protocolOut =
                new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);

        Path workDir = null;
        int port = 0;
        long pagecacheMb = 32;
        boolean ignoreStdin = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            try {
                switch (a) {
                    case "--work-dir" -> workDir = Path.of(args[++i]);
                    case "--port" -> port = Integer.parseInt(args[++i]);
                    case "--pagecache-mb" -> pagecacheMb = Long.parseLong(args[++i]);
                    case "--ignore-stdin" -> ignoreStdin = true;
                    default -> {
                        System.err.println("neo4j-launcher: unknown argument: " + a);
                        System.exit(2);
                    }
                }
            } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
                System.err.println("neo4j-launcher: bad value for " + a);
                System.exit(2);
            }
        }
        if (workDir == null) {
            workDir = Files.createTempDirectory("ebbtide-neo4j-");
        }
        Files.createDirectories(workDir);

        long t0 = System.nanoTime();
        Neo4j neo4j;
        try {
            neo4j = Neo4jBuilders.newInProcessBuilder(workDir)
                    .withDisabledServer() // no HTTP/HTTPS connector
                    .withConfig(GraphDatabaseSettings.auth_enabled, false)
                    .withConfig(GraphDatabaseSettings.udc_enabled, false) // no usage-data phone-home
                    .withConfig(GraphDatabaseSettings.pagecache_memory, pagecacheMb * 1024L * 1024L)
                    // Bolt's Netty event loops otherwise wait a 5 s quiet period each (10 s per stop).
                    .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                    .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(5))
                    .withConfig(BoltConnector.enabled, true)
                    .withConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                    .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                    .build();
        } catch (Throwable t) {
            System.err.println("neo4j-launcher: failed to start Neo4j");
            t.printStackTrace(System.err);
            System.exit(1);
            return;
        }

        AtomicBoolean closed = new AtomicBoolean(false);
        Runnable shutdown = () -> {
            if (closed.compareAndSet(false, true)) {
                System.err.println("neo4j-launcher: shutting down");
                long s0 = System.nanoTime();
                try {
                    neo4j.close();
                } catch (Throwable t) {
                    t.printStackTrace(System.err);
                }
                System.err.printf("neo4j-launcher: stopped in %d ms%n", (System.nanoTime() - s0) / 1_000_000);
            }
        };
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown, "neo4j-launcher-shutdown"));

        URI bolt = neo4j.boltURI();
        System.err.printf("neo4j-launcher: started in %d ms, work dir %s%n",
                (System.nanoTime() - t0) / 1_000_000, workDir.toAbsolutePath());
        protocolOut.println("BOLT bolt://127.0.0.1:" + bolt.getPort());
        protocolOut.flush();

        if (ignoreStdin) {
            Thread.currentThread().join(); // until a signal runs the shutdown hook
        }
        drainUntilEof(System.in);
        shutdown.run();
        System.exit(0);
    }

    private static void drainUntilEof(InputStream in) {
        byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // ignore input; only end-of-file matters
            }
        } catch (IOException e) {
            // treat a broken stdin like end-of-file
        }
    }
}
