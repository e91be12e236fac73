package dev.mcperrorlayers.contract;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The adapter contract (docs/adapters.md) for the JVM rows, in one place: a row keeps only what
 * is its client's (a {@link Row}: how to open it, make a call on it, map what it threw, close
 * it). {@link #main} runs a row in the mode the runner asked for:
 * <ul>
 * <li><b>One process per call</b>: the {@link Call} comes in the last argument (the endpoint
 * URL, or the word {@code stdio}) and the {@code MCP_ERROR_LAYERS_*} variables; the row opens its
 * client, makes the call, closes it, and the observation is the one line on stdout.</li>
 * <li><b>Persistent</b> ({@code MCP_ERROR_LAYERS_MODE=persistent}): announce
 * {@code {"persistent": 1, "concurrent": 16, "name": ..., "version": ...}} once the row is
 * prepared (its client library loaded: a call's deadline starts at its request line, so the
 * JVM's start and the library's class loading are never a call's time), then serve every request
 * line as it comes, many at once, each answered with one line that carries its {@code id}. The
 * calls of a case run on one client, on one thread of its own: opened at the case's first call,
 * kept by the request's {@code client}, closed after call {@code calls - 1}. Stdin closing means
 * no more calls: the calls in flight finish, the clients kept between calls are closed.</li>
 * </ul>
 * Stdout is the contract's alone: {@link #main} points {@code System.out} at stderr before the row
 * is prepared, so that nothing a library prints breaks the protocol. Everything else goes to
 * stderr; calls at once share it, so {@link #note} prefixes each line with the request its
 * thread serves ({@code [7] ...}).
 */
public final class Contract {

	/** How many calls one process serves at once: the cases of a matrix row that run at once. */
	public static final int CONCURRENT = 16;

	/** How long a client waits for its case's next call before it closes itself. */
	static final Duration NEXT_CALL_WAIT = Duration.ofSeconds(120);

	/** How long a client's own teardown may take once the last call is observed. */
	public static final Duration TEARDOWN = Duration.ofSeconds(2);

	/** What an adapter that makes no task calls says to a call that asks for a task. */
	public static final String NO_TASKS = "this adapter uses no task API of its client, so it cannot run a call "
			+ "as a task (docs/adapters.md, \"Tasks\")";

	/** The client as its registry names it and the version installed, for the announcement. */
	public record Sdk(String name, String version) {
	}

	private static final ThreadLocal<Long> REQUEST = new ThreadLocal<>();

	private static volatile PrintStream stderr = System.err;

	private Contract() {
	}

	/**
	 * Runs the adapter: {@code prepare} gets the row's own arguments (one-shot: those before the
	 * endpoint URL; persistent: all of them) and returns the row, or {@code null} for arguments
	 * it does not take ({@code options} is their synopsis for the usage line). Returns the exit
	 * status: call {@code System.exit} with it.
	 */
	public static int main(Sdk sdk, String options, String[] args, Function<List<String>, Row<?>> prepare) {
		PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
				StandardCharsets.UTF_8);
		System.setOut(System.err);
		String usage = "usage: adapter " + (options.isEmpty() ? "" : options + " ")
				+ "<endpoint-url | stdio> (the call comes in MCP_ERROR_LAYERS_* variables; `stdio` with "
				+ "MCP_ERROR_LAYERS_TRANSPORT=stdio and the server's command in MCP_ERROR_LAYERS_STDIO_COMMAND), "
				+ "or with MCP_ERROR_LAYERS_MODE=persistent and no URL (request lines on stdin)";
		if ("persistent".equals(System.getenv("MCP_ERROR_LAYERS_MODE"))) {
			Row<?> row = prepare.apply(List.of(args));
			if (row == null) {
				note("adapter error: unknown arguments " + List.of(args) + "; " + usage);
				return 2;
			}
			serve(row, sdk, System.in, out, false);
			return 0;
		}
		if (args.length == 0) {
			note("adapter error: " + usage);
			return 2;
		}
		Call call;
		try {
			call = Call.fromVars(args[args.length - 1], System::getenv);
		}
		catch (Call.Invalid error) {
			note("adapter error: " + error.getMessage() + "; " + usage);
			return 2;
		}
		List<String> own = List.of(args).subList(0, args.length - 1);
		Row<?> row = prepare.apply(own);
		if (row == null) {
			note("adapter error: unknown arguments " + own + "; " + usage);
			return 2;
		}
		once(row, call, out, false);
		return 0;
	}

	/** One process per call: the call's own client, opened, called and closed, then its line. */
	static <C> void once(Row<C> row, Call call, PrintStream out, boolean tasks) {
		Answer answer = new Answer(null, out);
		Observation refused = refused(row, call, tasks);
		if (refused != null) {
			answer.send(refused);
			return;
		}
		Kept<C> kept = new Kept<>(row, null);
		kept.jobs.add(new Job(call, answer, true));
		kept.run();
	}

	/**
	 * Persistent mode on {@code in} and {@code out}: the announcement, then request lines until
	 * {@code in} closes; returns once the calls in flight are answered and the clients closed.
	 */
	public static void serve(Row<?> row, Sdk sdk, InputStream in, PrintStream out, boolean tasks) {
		ObjectNode announce = JsonNodeFactory.instance.objectNode();
		announce.put("persistent", 1);
		announce.put("concurrent", CONCURRENT);
		announce.put("name", sdk.name());
		announce.put("version", sdk.version());
		synchronized (out) {
			out.println(announce);
			out.flush();
		}
		Clients<?> clients = new Clients<>(row);
		try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
			String line;
			while ((line = lines.readLine()) != null) {
				if (!line.isBlank()) {
					clients.serve(line, out, tasks);
				}
			}
		}
		catch (IOException error) {
			note("cannot read stdin: " + error);
		}
		clients.closeAll();
	}

	/** {@code unsupported} for a task call of an adapter without tasks, or one the row refuses. */
	static Observation refused(Row<?> row, Call call, boolean tasks) {
		if (call.task() != null && !tasks) {
			return Observation.unsupported(NO_TASKS);
		}
		String why = row.refuse(call);
		return why == null ? null : Observation.unsupported(why);
	}

	/** The one answer a request gets: its observation, or an error line (an adapter-error). */
	static final class Answer {

		private final Long id;

		private final PrintStream out;

		private boolean sent;

		Answer(Long id, PrintStream out) {
			this.id = id;
			this.out = out;
		}

		Long id() {
			return id;
		}

		void send(Observation observation) {
			write(observation.line(id));
		}

		/** Not an observation: the runner makes this call an {@code adapter-error} and shows it. */
		void fail(String why) {
			ObjectNode line = JsonNodeFactory.instance.objectNode();
			if (id != null) {
				line.put("id", id);
			}
			line.put("error", "the adapter failed: " + why);
			write(line.toString());
		}

		private void write(String line) {
			if (sent) {
				return;
			}
			sent = true;
			synchronized (out) {
				out.println(line);
				out.flush();
			}
		}

	}

	record Job(Call call, Answer answer, boolean closes) {
	}

	/** The clients of a persistent process, by the {@code client} id their requests carry. */
	static final class Clients<C> {

		private final Row<C> row;

		private final Map<Long, Kept<C>> kept = new HashMap<>();

		private final List<Thread> threads = new ArrayList<>();

		Clients(Row<C> row) {
			this.row = row;
		}

		void serve(String line, PrintStream out, boolean tasks) {
			JsonNode request;
			try {
				request = Json.MAPPER.readTree(line);
			}
			catch (IOException error) {
				request = null;
			}
			Long id = request != null && request.path("id").canConvertToLong() ? request.path("id").asLong() : null;
			REQUEST.set(id);
			Answer answer = new Answer(id, out);
			try {
				Call call = Call.fromRequest(request);
				Observation refused = refused(row, call, tasks);
				if (refused != null) {
					// The runner ends a case at an unsupported call: its client goes.
					forget(call.client());
					answer.send(refused);
					return;
				}
				boolean closes = call.client() == null || call.isLast();
				submit(new Job(call, answer, closes));
			}
			catch (Call.Invalid error) {
				note("adapter error: " + error.getMessage());
				answer.fail(error.getMessage());
			}
			finally {
				REQUEST.remove();
			}
		}

		synchronized void submit(Job job) {
			threads.removeIf(thread -> !thread.isAlive());
			Long id = job.call().client();
			Kept<C> client = id == null ? null : kept.remove(id);
			if (client == null || !client.offer(job)) {
				client = new Kept<>(row, id);
				client.offer(job);
				Thread thread = new Thread(client, "client-" + (id == null ? "once" : id));
				thread.setDaemon(true);
				threads.add(thread);
				thread.start();
			}
			if (!job.closes() && id != null) {
				kept.put(id, client);
			}
		}

		synchronized void forget(Long id) {
			if (id != null) {
				Kept<C> client = kept.remove(id);
				if (client != null) {
					client.finish();
				}
			}
		}

		/** No more calls: the clients kept for a next call close, the calls in flight finish. */
		void closeAll() {
			List<Thread> waiting;
			synchronized (this) {
				kept.values().forEach(Kept::finish);
				kept.clear();
				waiting = new ArrayList<>(threads);
			}
			for (Thread thread : waiting) {
				try {
					thread.join();
				}
				catch (InterruptedException error) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}

	}

	/** One client, served on a thread of its own: its calls one after another as they come. */
	static final class Kept<C> implements Runnable {

		private static final Job END = new Job(null, null, true);

		private final Row<C> row;

		private final Long id;

		final LinkedBlockingQueue<Job> jobs = new LinkedBlockingQueue<>();

		private boolean done;

		Kept(Row<C> row, Long id) {
			this.row = row;
			this.id = id;
		}

		/** Queues {@code job}; false when this client's thread is over (it closed itself). */
		synchronized boolean offer(Job job) {
			if (done) {
				return false;
			}
			jobs.add(job);
			return true;
		}

		synchronized void finish() {
			jobs.add(END);
		}

		@Override
		public void run() {
			C client = null;
			boolean first = true;
			try {
				while (true) {
					Job job = first ? jobs.take() : jobs.poll(NEXT_CALL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
					first = false;
					if (job == null) {
						note("no next call within " + NEXT_CALL_WAIT.toSeconds() + " s: the client is closed");
						break;
					}
					if (job == END) {
						break;
					}
					REQUEST.set(job.answer().id());
					Observation observation;
					try {
						if (client == null) {
							try {
								client = row.open(job.call());
							}
							catch (Throwable error) {
								if (!job.closes()) {
									note("the client did not open: the next call opens one again");
								}
								observation = caughtBy(row, error, job.call());
								job.answer().send(observation);
								if (job.closes()) {
									return;
								}
								continue;
							}
						}
						observation = one(row, client, job.call());
					}
					catch (Throwable error) {
						note("the adapter failed: " + describe(error));
						job.answer().fail("the call ended without an observation: " + describe(error));
						continue;
					}
					if (job.closes()) {
						close(row, client);
						client = null;
						job.answer().send(observation);
						return;
					}
					job.answer().send(observation);
				}
			}
			catch (InterruptedException error) {
				Thread.currentThread().interrupt();
			}
			finally {
				synchronized (this) {
					done = true;
				}
				// A call queued as this client closed itself (its wait passed) still gets its line.
				for (Job left; (left = jobs.poll()) != null;) {
					if (left != END) {
						left.answer().fail("the client of this call had closed itself (no call within "
								+ NEXT_CALL_WAIT.toSeconds() + " s)");
					}
				}
				if (client != null) {
					close(row, client);
				}
				REQUEST.remove();
			}
		}

		private static <C> Observation one(Row<C> row, C client, Call call) {
			try {
				return row.call(client, call);
			}
			catch (Throwable error) {
				return caughtBy(row, error, call);
			}
		}

		private static Observation caughtBy(Row<?> row, Throwable error, Call call) {
			try {
				return row.error(error, call);
			}
			catch (RuntimeException mapping) {
				return Observation.of("UNCLASSIFIED_ERROR", describe(error)).more("the row's mapping failed: " + mapping);
			}
		}

		private static <C> void close(Row<C> row, C client) {
			Long request = REQUEST.get();
			try {
				String how = within(TEARDOWN, () -> {
					REQUEST.set(request);
					return row.close(client);
				});
				note("close: " + how);
			}
			catch (TimeoutException error) {
				note("close took longer than " + TEARDOWN.toMillis() + " ms; abandoned");
			}
			catch (Exception error) {
				note("close failed: " + describe(error));
			}
		}

	}

	/**
	 * {@code work} on a thread of its own for at most {@code timeout}: its value, or a
	 * {@link TimeoutException} when the time passes first (the work is interrupted and abandoned,
	 * as an application with a deadline abandons it). What it throws is rethrown as it was.
	 */
	public static <T> T within(Duration timeout, Callable<T> work) throws Exception {
		Long request = REQUEST.get();
		FutureTask<T> task = new FutureTask<>(() -> {
			REQUEST.set(request);
			return work.call();
		});
		Thread thread = new Thread(task, "within");
		thread.setDaemon(true);
		thread.start();
		try {
			return task.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException error) {
			Throwable cause = error.getCause();
			if (cause instanceof Exception exception) {
				throw exception;
			}
			throw error;
		}
		catch (TimeoutException error) {
			task.cancel(true);
			throw error;
		}
	}

	/** The request this thread serves ({@code null} in one-shot mode), for the stderr prefix. */
	public static Long currentRequest() {
		return REQUEST.get();
	}

	/**
	 * The version of the Maven artifact {@code group:artifact} on the classpath, from the
	 * {@code pom.properties} its jar carries ({@code anchor} is a class of that jar's loader),
	 * or {@code "unknown"}.
	 */
	public static String installedVersion(Class<?> anchor, String group, String artifact) {
		String path = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
		try (InputStream in = anchor.getResourceAsStream(path)) {
			java.util.Properties properties = new java.util.Properties();
			if (in != null) {
				properties.load(in);
			}
			return properties.getProperty("version", "unknown");
		}
		catch (IOException error) {
			return "unknown";
		}
	}

	/** Writes {@code text} to stderr, each line prefixed {@code [<id>] } with the request this thread serves. */
	public static void note(String text) {
		Long id = REQUEST.get();
		StringBuilder lines = new StringBuilder();
		for (String line : text.split("\n", -1)) {
			if (id != null) {
				lines.append('[').append(id).append("] ");
			}
			lines.append(line).append('\n');
		}
		PrintStream err = stderr;
		synchronized (err) {
			err.print(lines);
			err.flush();
		}
	}

	/** Where {@link #note} writes (the tests keep the lines). */
	static void noteTo(PrintStream err) {
		stderr = err;
	}

	/**
	 * The error and its causes as text, outermost first, each {@code Class: message}; a cause
	 * whose text the one before it already holds is skipped; at most five.
	 */
	public static String describe(Throwable error) {
		List<String> parts = new ArrayList<>();
		for (Throwable e : chain(error)) {
			String message = e.getMessage();
			String text = e.getClass().getName() + (message == null ? "" : ": " + message);
			if (parts.isEmpty() || message == null || !parts.get(parts.size() - 1).contains(message)) {
				parts.add(text);
			}
			if (parts.size() >= 5) {
				break;
			}
		}
		return String.join(" <- caused by ", parts);
	}

	/** The error and its causes ({@code getCause()}), outermost first; a cycle ends it. */
	public static List<Throwable> chain(Throwable error) {
		List<Throwable> found = new ArrayList<>();
		for (Throwable e = error; e != null && !found.contains(e); e = e.getCause()) {
			found.add(e);
		}
		return found;
	}

	/** The first error of {@code type} in {@code error}'s causes (itself included), or {@code null}. */
	public static <T extends Throwable> T find(Throwable error, Class<T> type) {
		for (Throwable e : chain(error)) {
			if (type.isInstance(e)) {
				return type.cast(e);
			}
		}
		return null;
	}

}
