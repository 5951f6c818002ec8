/**
 * process_read's "grep" over a process's output as bytes arrive from the
 * spill file and the ring: split at newlines (a byte never inside a UTF-8
 * character), each line made plain and tested, only the newest `max`
 * matches kept. Memory stays bounded whatever the output: the matches, and
 * one line at most `maxLineBytes` long (a longer one is tested in pieces).
 */
const EMPTY = Buffer.alloc(0);

/** What `plain` removes or replaces: control characters (tab aside) and C1 codes. */
// eslint-disable-next-line no-control-regex
const NEEDS_CLEANING = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

export class OutputGrep {
    private matches: string[] = [];
    private carry: Buffer = EMPTY;
    /** The first line is a fragment (the output before it is gone): not tested. */
    private skipping: boolean;

    constructor(
        private readonly pattern: RegExp,
        private readonly max: number,
        private readonly plain: (raw: string) => string,
        private readonly maxLineBytes: number,
        options: { startsMidLine?: boolean } = {}
    ) {
        this.skipping = options.startsMidLine === true;
    }

    /** Bytes that follow the ones fed before (`chunk` may be reused by the caller). */
    feed(chunk: Buffer): void {
        const nl = chunk.lastIndexOf(10);
        if (nl === -1) return this.hold(chunk);
        // The complete lines decoded at once (fast), split, each tested.
        const complete = chunk.subarray(0, nl);
        const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, complete]) : complete;
        this.carry = EMPTY;
        for (const line of bytes.toString("utf8").split("\n")) this.line(line);
        this.hold(chunk.subarray(nl + 1));
    }

    /** The newest matches, oldest first (an unfinished last line counts as a line). */
    finish(): string[] {
        if (this.carry.length > 0) this.line(this.carry.toString("utf8"));
        this.carry = EMPTY;
        return this.matches.slice(-this.max);
    }

    /** Keeps the start of a line still to come; one past `maxLineBytes` is tested as it is. */
    private hold(rest: Buffer): void {
        if (rest.length === 0) return;
        this.carry = this.carry.length > 0 ? Buffer.concat([this.carry, rest]) : Buffer.from(rest);
        if (this.carry.length > this.maxLineBytes) {
            this.line(this.carry.toString("utf8"));
            this.carry = EMPTY;
        }
    }

    private line(raw: string): void {
        if (this.skipping) {
            this.skipping = false;
            return;
        }
        // Most lines hold no escape, carriage return or control character: nothing to clean.
        const line = NEEDS_CLEANING.test(raw) ? this.plain(raw) : raw;
        if (!this.pattern.test(line)) return;
        this.matches.push(line);
        // Trimmed now and then, not per match: a flood of matches costs O(1) each.
        if (this.matches.length >= this.max * 2) this.matches = this.matches.slice(-this.max);
    }
}
