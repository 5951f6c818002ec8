// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One display line: tabs expanded, control characters (escape sequences too) made visible. */
export function sanitizeLine(line: string): string {
    return line.replace(/\t/g, "    ").replace(CONTROL, "\ufffd");
}
