package dev.mcperrorlayers.contract;

/**
 * A row: how its client is opened, called, read and closed. The contract keeps one client per
 * case (docs/adapters.md, "One client per case"), as an application keeps the client it made:
 * <ul>
 * <li>the case's first call opens it ({@link #open}); a failed open is that call's observation
 * ({@link #error}), nothing is kept, and the next call opens one again;</li>
 * <li>every call of the case goes through it ({@link #call}); what a call throws is the
 * application's to catch, mapped by {@link #error}, and the client stays: whatever state a fault
 * left it in, the next call goes through the same object;</li>
 * <li>after the case's last call it is closed ({@link #close}, for at most 2 s), before that
 * call's answer goes out, so that what closing sends is in the call's record.</li>
 * </ul>
 * Every method of one client runs on that client's own thread.
 *
 * @param <C> the client object an application keeps between its calls
 */
public interface Row<C> {

	/**
	 * Why this call cannot be made (a transport the row has no client for), answered
	 * {@code unsupported} before any client is opened; {@code null} for every call it can make.
	 */
	default String refuse(Call call) {
		return null;
	}

	/** Opens the client for {@code call}, as an application does before its first call. */
	C open(Call call) throws Exception;

	/** Makes {@code call} on the open client and returns its observation. */
	Observation call(C client, Call call) throws Exception;

	/** The observation for what {@link #open} or {@link #call} threw, as the application caught it. */
	Observation error(Throwable error, Call call);

	/** Closes the client after the case's last call: how it ended (to stderr). */
	String close(C client) throws Exception;

}
