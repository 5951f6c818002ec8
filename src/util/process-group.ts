/**
 * Signals a whole process group (a child started with `detached: true` leads
 * its own): what it started goes with it. False when the group is gone.
 */
export function killProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
    try {
        process.kill(-pgid, signal);
        return true;
    } catch {
        return false; // ESRCH: the group is gone
    }
}
