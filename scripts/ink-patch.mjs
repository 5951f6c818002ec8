// Two fixes to Ink, applied the same way by the build (esbuild) and the tests (vitest),
// so the tests exercise the Ink that ships; then start-up patches to the UI's text
// packages (same results, checked by test/build/string-width-patch.test.ts), build only. Ink is pinned exactly in package.json;
// when an upgrade moves the patched line, the build and the tests fail instead of
// quietly shipping the bug again.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

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

/** Every copy of string-width (Ink's wrap-ansi pins an older one), wherever node_modules puts it. */
export const STRING_WIDTH_INDEX = /[\\/]string-width[\\/]index\.js$/;

/**
 * Start-up speed, same widths: string-width builds an `Intl.Segmenter` at import (~20 ms of
 * ICU loading) and runs its grapheme and emoji regexes even for plain text. The segmenter
 * becomes lazy, and text whose every code point is its own cluster and neither a control,
 * mark nor pictograph (Latin, punctuation, arrows, box drawing: the first frame's `·`, `─`,
 * `❯`) is measured by East Asian Width alone, which is what both versions return for it.
 */
const FAST_WIDTH = `
// North (scripts/ink-patch.mjs): single-code-point clusters need no segmenter.
const northSimpleText = /^[\\u0020-\\u007E\\u00A0-\\u00AC\\u00AE-\\u02FF\\u2010-\\u2029\\u202F-\\u205E\\u2190-\\u2BFF]*$/;
const northPictograph = /\\p{Extended_Pictographic}/u;
function northFastWidth(string, ambiguousAsWide) {
	if (!northSimpleText.test(string) || northPictograph.test(string)) return -1;
	let width = 0;
	for (let index = 0; index < string.length; index++) {
		width += eastAsianWidth(string.charCodeAt(index), {ambiguousAsWide});
	}
	return width;
}
`;

const SEGMENTER_AT_IMPORT = "const segmenter = new Intl.Segmenter();";
/** 8.x: building the RGI_Emoji set takes ~30 ms; it is built on the first text that needs it. */
const RGI_EMOJI_AT_IMPORT = "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;";
const RGI_EMOJI_USE = "rgiEmojiRegex.test(segment)";
const SEGMENTER_USE = "segmenter.segment(";
/** Where each version has stripped ANSI codes and returned for an empty string. */
const FAST_PATH_AT = {
    // 8.3: after its own ASCII fast path.
    8: "\tif (/^[\\u0020-\\u007E]*$/.test(string)) {\n\t\treturn string.length;\n\t}\n",
    // 7.2: after the empty-string check, before any segmenting.
    7: "\tif (string.length === 0) {\n\t\treturn 0;\n\t}\n",
};
const FAST_PATH_CALL = {
    8: "\tconst northWidth = northFastWidth(string, !ambiguousIsNarrow);\n\tif (northWidth !== -1) {\n\t\treturn northWidth;\n\t}\n",
    7: "\tif (/^[\\u0020-\\u007E]*$/.test(string)) {\n\t\treturn string.length;\n\t}\n\n\tconst northWidth = northFastWidth(string, !ambiguousIsNarrow);\n\tif (northWidth !== -1) {\n\t\treturn northWidth;\n\t}\n",
};

function occursOnce(source, text) {
    const at = source.indexOf(text);
    return at !== -1 && source.indexOf(text, at + 1) === -1;
}

/** Returns string-width's index.js with the fast path; throws when its source is not the one patched. */
export function patchStringWidth(source, file = "string-width/index.js") {
    const major = source.includes("const rgiEmojiRegex") ? "8" : "7";
    const fastPathAt = FAST_PATH_AT[major];
    if (
        !occursOnce(source, SEGMENTER_AT_IMPORT) ||
        !occursOnce(source, SEGMENTER_USE) ||
        !occursOnce(source, fastPathAt) ||
        !source.includes("import {eastAsianWidth} from 'get-east-asian-width';") ||
        (major === "8" &&
            (!occursOnce(source, RGI_EMOJI_AT_IMPORT) || !occursOnce(source, RGI_EMOJI_USE)))
    ) {
        throw new Error(
            `string-width's start-up patch no longer applies to ${file}: string-width was upgraded ` +
                "or changed; update or remove the patch in scripts/ink-patch.mjs."
        );
    }
    // Replacement functions: the inserted code contains `$`, special in replacement strings.
    const patched = source
        .replace(SEGMENTER_AT_IMPORT, () => `let segmenter;\n${FAST_WIDTH}`)
        .replace(SEGMENTER_USE, () => "(segmenter ??= new Intl.Segmenter()).segment(")
        .replace(fastPathAt, () => fastPathAt + "\n" + FAST_PATH_CALL[major]);
    if (major === "7") return patched;
    // A RegExp built by the constructor at first use: a literal is parsed with the module.
    return patched
        .replace(RGI_EMOJI_AT_IMPORT, () => "let rgiEmojiRegex;")
        .replace(
            RGI_EMOJI_USE,
            () => "(rgiEmojiRegex ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v')).test(segment)"
        );
}

/** esbuild plugin: the fast path in every bundled string-width. */
export function stringWidthPatchEsbuild() {
    return sourcePatchEsbuild({
        name: "string-width-fast-path",
        filter: STRING_WIDTH_INDEX,
        patch: patchStringWidth,
    });
}

/**
 * The other packages Ink's first frame loads that build an `Intl.Segmenter` at import.
 * ansi-tokenize and slice-ansi segment every line of every frame: a line whose every code
 * unit is its own grapheme cluster (ANSI codes, Latin, punctuation, arrows, box drawing) is
 * split by hand, so the first frame needs no ICU segmenter; wrap-ansi's is only made lazy.
 */
export const SEGMENTER_AT_IMPORT_FILES =
    /[\\/](?:wrap-ansi[\\/]index|slice-ansi[\\/]tokenize-ansi|@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]tokenize)\.js$/;
const SEGMENTER_DECLARATION = /^const (\w+) = new Intl\.Segmenter\(([^)]*)\);$/m;
const SINGLE_CODE_UNIT_CLUSTERS = String.raw`/^[\x07\x1b\x20-\x7e\u00a0-\u02ff\u2010-\u205e\u2190-\u2bff]*$/`;

/** Returns the source with its segmenter built on first use, or the source unchanged when it builds none. */
export function patchSegmenterAtImport(source, file) {
    if (!source.includes("new Intl.Segmenter(")) return source;
    const declaration = source.match(SEGMENTER_DECLARATION);
    if (!declaration || source.split("new Intl.Segmenter(").length !== 2) {
        throw new Error(
            `The lazy-segmenter patch no longer applies to ${file}: its Intl.Segmenter is not built ` +
                "by one top-level `const NAME = new Intl.Segmenter(…);`; update scripts/ink-patch.mjs."
        );
    }
    const [line, name, args] = declaration;
    const handSplit = /ansi-tokenize|slice-ansi/.test(file);
    const segment = handSplit
        ? `(text) => northOwnClusters.test(text) ? northCodeUnitSegments(text) : (northSegmenter ??= new Intl.Segmenter(${args})).segment(text)`
        : `(text) => (northSegmenter ??= new Intl.Segmenter(${args})).segment(text)`;
    // What these packages use of Intl's Segments: iteration and containing().
    const helpers = handSplit
        ? `const northOwnClusters = ${SINGLE_CODE_UNIT_CLUSTERS};
function northCodeUnitSegments(input) {
    const at = (index) => ({ segment: input[index], index, input });
    return {
        containing: (index) => (index >= 0 && index < input.length ? at(index) : undefined),
        *[Symbol.iterator]() {
            for (let index = 0; index < input.length; index++) yield at(index);
        },
    };
}
`
        : "";
    return source.replace(
        line,
        () =>
            `// North (scripts/ink-patch.mjs): the segmenter is built on first use.\n${helpers}let northSegmenter;\nconst ${name} = { segment: ${segment} };`
    );
}

/** esbuild plugin: lazy segmenters in the packages above. */
export function segmenterPatchEsbuild() {
    return sourcePatchEsbuild({
        name: "lazy-segmenters",
        filter: SEGMENTER_AT_IMPORT_FILES,
        patch: patchSegmenterAtImport,
    });
}

/** Every installed copy of package `name` under `nodeModules` (nested layouts too), sorted. */
function installedCopies(nodeModules, name, found = []) {
    if (existsSync(join(nodeModules, name, "package.json"))) found.push(join(nodeModules, name));
    for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
        const packages = entry.name.startsWith("@")
            ? readdirSync(join(nodeModules, entry.name)).map((inner) => join(entry.name, inner))
            : [entry.name];
        for (const pkg of packages) {
            const nested = join(nodeModules, pkg, "node_modules");
            if (existsSync(nested)) installedCopies(nested, name, found);
        }
    }
    return found.sort();
}

/**
 * esbuild plugin: npm installs byte-identical copies of a package under each dependent
 * (four of ansi-styles 6.2.3 for Ink, wrap-ansi, slice-ansi and ansi-tokenize), and esbuild
 * bundles each one, so the UI compiles and runs each at start-up. An import of one of `names`
 * is pointed at the first installed copy (in path order) whose file is identical.
 */
export function identicalCopiesEsbuild(
    names,
    nodeModules = fileURLToPath(new URL("../node_modules", import.meta.url))
) {
    const filter = new RegExp(
        `^(?:${names.map((name) => name.replace(/[-/]/g, "\\$&")).join("|")})$`
    );
    return {
        name: "identical-package-copies",
        setup(build) {
            const copiesOf = new Map();
            build.onResolve({ filter }, async (args) => {
                if (args.pluginData?.northIdentical) return null;
                const resolved = await build.resolve(args.path, {
                    kind: args.kind,
                    resolveDir: args.resolveDir,
                    importer: args.importer,
                    pluginData: { northIdentical: true },
                });
                const inPackage = `${sep}node_modules${sep}${args.path}${sep}`;
                const at = resolved.path?.lastIndexOf(inPackage) ?? -1;
                if (resolved.errors.length > 0 || at === -1) return null;
                const fileInPackage = resolved.path.slice(at + inPackage.length);
                if (!copiesOf.has(args.path)) {
                    copiesOf.set(args.path, installedCopies(nodeModules, args.path));
                }
                const contents = readFileSync(resolved.path, "utf8");
                const first = copiesOf
                    .get(args.path)
                    .map((copy) => join(copy, fileInPackage))
                    .find((file) => existsSync(file) && readFileSync(file, "utf8") === contents);
                return { path: first ?? resolved.path };
            });
        },
    };
}

const INK_BUILD_FILE = /[\\/]ink[\\/]build[\\/].+\.js$/;

/**
 * Vite/vitest plugin: the same fixes for the tests (ink must be inlined, not externalized).
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
