/**
 * Regular expressions from the model, run over output North keeps reading (a
 * background process's lines), must not be able to freeze North: a pattern
 * such as `(a+)+$` backtracks for ages on a long line. V8's linear-time
 * engine (the `l` flag, behind a V8 option turned on here at first use)
 * matches in time proportional to the line, and refuses what it cannot run
 * that way (backreferences, lookaround).
 */
import { setFlagsFromString } from "node:v8";

let linearFlag: "l" | "" | undefined;

/** "l" where this V8 has the linear engine; "" where it has not (a runtime without it). */
function linearFlagHere(): "l" | "" {
    if (linearFlag !== undefined) return linearFlag;
    try {
        setFlagsFromString("--enable-experimental-regexp-engine");
        // eslint-disable-next-line no-invalid-regexp -- the flag exists once the V8 option is on
        new RegExp("a", "l");
        linearFlag = "l";
    } catch {
        linearFlag = "";
    }
    return linearFlag;
}

/** Thrown for a pattern that is not valid, or that could only run with backtracking. */
export class LinearRegExpError extends Error {}

/** `pattern` compiled to match in linear time; throws LinearRegExpError with the reason. */
export function linearRegExp(pattern: string, flags = ""): RegExp {
    try {
        return new RegExp(pattern, flags + linearFlagHere());
    } catch (error) {
        const message = (error as Error).message;
        if (/linear time/i.test(message)) {
            throw new LinearRegExpError(
                "it needs backtracking (a backreference or a lookaround), which output patterns do not allow; use a plain regex"
            );
        }
        throw new LinearRegExpError(message);
    }
}
