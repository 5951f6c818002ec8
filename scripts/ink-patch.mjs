// Two fixes to Ink, applied the same way by the build (esbuild) and the tests (vitest),
// so the tests exercise the Ink that ships. Ink is pinned exactly in package.json (6.8.0,
// the last Ink for Node 20, has both bugs); when an upgrade moves a patched line, the
// build and the tests fail instead of quietly shipping the bug again.
import { readFileSync } from "node:fs";

/**
 * An esbuild plugin that rewrites every bundled file matching `filter` with
 * `patch(source, path)`; a throw fails the build with its message (no stack).
 * With `missing`, the build also fails, saying so, when no file matched.
 */
export function sourcePatchEsbuild({ name, filter, patch, missing }) {
    return {
        name,
        setup(build) {
            let patched = false;
            build.onStart(() => {
                patched = false;
            });
            build.onLoad({ filter }, (args) => {
                try {
                    const contents = patch(readFileSync(args.path, "utf8"), args.path);
                    patched = true;
                    return { contents, loader: "js" };
                } catch (error) {
                    return {
                        errors: [{ text: error instanceof Error ? error.message : String(error) }],
                    };
                }
            });
            if (missing === undefined) return;
            build.onEnd((result) => {
                if (patched || result.errors.length > 0) return null;
                return { errors: [{ text: missing }] };
            });
        },
    };
}

/** `source` with `original` replaced; throws `message` unless `original` is there exactly once. */
export function replaceOnce(source, original, replacement, message) {
    const at = source.indexOf(original);
    if (at === -1 || source.indexOf(original, at + 1) !== -1) throw new Error(message);
    return source.replace(original, () => replacement);
}

/** Ink's log-update module, wherever node_modules puts it. */
export const INK_LOG_UPDATE = /[\\/]ink[\\/]build[\\/]log-update\.js$/;

/**
 * Ink 6.8's incremental renderer moves up one row too few when the previous frame
 * ended with a newline (every frame shorter than the screen), so each diff lands
 * one row low and the screen drifts. Moving up over the newline row fixes it.
 */
const BUGGY = "buffer.push(ansiEscapes.cursorUp(previousVisible - 1));";
const FIXED =
    "buffer.push(ansiEscapes.cursorUp(previousVisible - (previousOutput.endsWith('\\n') ? 0 : 1)));";

/** Returns log-update.js with the fix; throws when the line to fix is not there exactly once. */
export function patchInkLogUpdate(source, file = "ink/build/log-update.js") {
    return replaceOnce(
        source,
        BUGGY,
        FIXED,
        `Ink's incremental-render fix no longer applies: ${file} does not contain ` +
            `\`${BUGGY}\` exactly once. Ink was upgraded or changed; check whether the ` +
            "bug is fixed upstream and update or remove the patch in scripts/ink-patch.mjs."
    );
}

/** esbuild plugin: patches Ink, and fails the build when Ink's log-update was never bundled. */
export function inkPatchEsbuild() {
    return sourcePatchEsbuild({
        name: "ink-incremental-fix",
        filter: INK_LOG_UPDATE,
        patch: patchInkLogUpdate,
        missing:
            "Ink's build/log-update.js was not bundled, so its incremental-render fix was not applied; update scripts/ink-patch.mjs for this Ink version.",
    });
}

/** Ink's measure-text module, wherever node_modules puts it. */
export const INK_MEASURE_TEXT = /[\\/]ink[\\/]build[\\/]measure-text\.js$/;

/** Texts whose size Ink's measure-text keeps: every text of several frames (upstream Ink 8 keeps 1,000 too). */
export const INK_TEXT_SIZES_KEPT = 1000;

/**
 * Ink 6.8 keeps the size of every distinct text it ever laid out in a module-level Map that
 * is never evicted (vadimdemedes/ink#986; fixed in Ink 8, which needs Node 22), so a long chat
 * holds every line it ever drew: about 1.5 MB more per 100 turns of `npm run bench -- soak`.
 * The patched cache forgets its oldest text once it holds INK_TEXT_SIZES_KEPT.
 */
const UNBOUNDED_SET = "    cache.set(text, dimensions);";
const BOUNDED_SET = `    if (cache.size >= ${INK_TEXT_SIZES_KEPT}) cache.delete(cache.keys().next().value);
    cache.set(text, dimensions);`;

/** Returns measure-text.js with a bounded cache; throws when the line to fix is not there exactly once. */
export function patchInkMeasureText(source, file = "ink/build/measure-text.js") {
    return replaceOnce(
        source,
        UNBOUNDED_SET,
        BOUNDED_SET,
        `Ink's text-size cache bound no longer applies: ${file} does not contain ` +
            `\`${UNBOUNDED_SET.trim()}\` exactly once. Ink was upgraded or changed; check whether ` +
            "the cache is bounded upstream and update or remove the patch in scripts/ink-patch.mjs."
    );
}

/** esbuild plugin: bounds Ink's text-size cache, and fails the build when measure-text was never bundled. */
export function inkTextCachePatchEsbuild() {
    return sourcePatchEsbuild({
        name: "ink-text-cache-bound",
        filter: INK_MEASURE_TEXT,
        patch: patchInkMeasureText,
        missing:
            "Ink's build/measure-text.js was not bundled, so its cache bound was not applied; update scripts/ink-patch.mjs for this Ink version.",
    });
}

const INK_BUILD_FILE = /[\\/]ink[\\/]build[\\/].+\.js$/;

/**
 * Vite/vitest plugin: the same patch for the tests (ink must be inlined, not externalized).
 * Ink's files are loaded here without their source-map comments: the maps point to sources
 * the package does not ship, and Vite would warn once per file.
 */
export function inkPatchVite() {
    return {
        name: "ink-incremental-fix",
        enforce: "pre",
        load(id) {
            const file = id.split("?")[0];
            if (!INK_BUILD_FILE.test(file)) return null;
            const code = readFileSync(file, "utf8").replace(/^\/\/# sourceMappingURL=.*$/m, "");
            let patched = code;
            if (INK_LOG_UPDATE.test(file)) patched = patchInkLogUpdate(code, file);
            if (INK_MEASURE_TEXT.test(file)) patched = patchInkMeasureText(code, file);
            return { code: patched, map: null };
        },
    };
}
