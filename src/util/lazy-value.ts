/**
 * A value built on first use and kept. Start-up modules build their zod schemas
 * this way: zod's constructors cost milliseconds on first call, before the
 * chat's first frame, for files that mostly do not exist or are read later.
 */
export function lazyValue<T>(build: () => T): () => T {
    let built: { value: T } | undefined;
    return () => (built ??= { value: build() }).value;
}
