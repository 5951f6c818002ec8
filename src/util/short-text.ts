/** "42s ago", "5m ago", "3h ago", "2d ago": how long before `now` the ISO time `iso` was. */
export function age(iso: string, now: number): string {
    const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
    if (seconds < 60) return `${seconds}s ago`;
    if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
    if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
    return `${Math.round(seconds / 86_400)}d ago`;
}

/** `text` on one line, cut to `width` characters with an ellipsis. */
export function oneLine(text: string | null, width: number): string {
    const flat = (text ?? "").replace(/\s+/g, " ").trim();
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

/** "12 MB", "0.6 MB": a size in MiB to one decimal, for limits in messages. */
export function megabytes(bytes: number): string {
    return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
