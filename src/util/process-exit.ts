/**
 * What must still happen when North's process exits, however it exits
 * (running command and MCP server groups killed, temp folders removed): one
 * `exit` listener runs every registered cleanup. `process.on("exit")` is
 * process-wide itself, so this one list is too; owners register and forget
 * their own entries.
 */
const cleanups = new Set<() => void>();

function runCleanups(): void {
    for (const cleanup of [...cleanups]) {
        try {
            cleanup();
        } catch {
            // One failed cleanup must not keep the others from running.
        }
    }
    cleanups.clear();
}

/** Runs `cleanup` when the process exits; the returned function forgets it. */
export function atProcessExit(cleanup: () => void): () => void {
    if (!process.listeners("exit").includes(runCleanups)) process.on("exit", runCleanups);
    cleanups.add(cleanup);
    return () => void cleanups.delete(cleanup);
}
