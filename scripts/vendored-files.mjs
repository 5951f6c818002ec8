// North's copies of a few files of the chat's text packages, in vendor/<name>@<version>/
// with each package's licence (vendor/README.md says what changed and the figure that
// earns it). The build (esbuild) and the tests (vitest) load them in place of the installed
// files, so the tests run the code that ships; the build fails when a copy goes unused
// (the installed version moved on: vendor that version's file again, or drop the copy).
import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const VENDOR = fileURLToPath(new URL("../vendor/", import.meta.url));

/** Files below `dir`, relative, with `/` separators. */
function filesBelow(dir, prefix = "") {
    return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
            ? filesBelow(dir, `${prefix}${entry.name}/`)
            : [`${prefix}${entry.name}`]
    );
}

/** Every vendored file: the package's name and version, its path in the package, the copy's path. */
export function vendoredFiles() {
    const packages = readdirSync(VENDOR, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .flatMap((entry) =>
            entry.name.startsWith("@")
                ? readdirSync(join(VENDOR, entry.name)).map((inner) => `${entry.name}/${inner}`)
                : [entry.name]
        );
    return packages.flatMap((folder) => {
        const at = folder.lastIndexOf("@");
        const name = folder.slice(0, at);
        const version = folder.slice(at + 1);
        return filesBelow(join(VENDOR, folder))
            .filter((file) => file !== "license")
            .map((file) => ({ name, version, file, copy: join(VENDOR, folder, file) }));
    });
}

/** The vendored copy that stands for `path` (an installed file), or undefined. */
export function vendoredCopyOf(path, files = vendoredFiles()) {
    const posix = path.split(sep).join("/");
    for (const vendored of files) {
        const suffix = `/node_modules/${vendored.name}/${vendored.file}`;
        if (!posix.endsWith(suffix)) continue;
        const root = path.slice(0, path.length - vendored.file.length);
        const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
        if (version === vendored.version) return vendored;
    }
    return undefined;
}

function filterOf(files) {
    const escape = (text) =>
        text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&").replace(/\\\//g, "[\\\\/]");
    const names = [...new Set(files.map((f) => `${escape(f.name)}[\\\\/]${escape(f.file)}`))];
    return new RegExp(`[\\\\/]node_modules[\\\\/](?:${names.join("|")})$`);
}

/** esbuild plugin: bundles the vendored copies; fails the build when one is not used. */
export function vendoredFilesEsbuild() {
    const files = vendoredFiles();
    return {
        name: "vendored-files",
        setup(build) {
            const used = new Set();
            build.onStart(() => used.clear());
            build.onLoad({ filter: filterOf(files) }, (args) => {
                const vendored = vendoredCopyOf(args.path, files);
                if (!vendored) return null;
                used.add(vendored.copy);
                return { contents: readFileSync(vendored.copy, "utf8"), loader: "js" };
            });
            build.onEnd((result) => {
                if (result.errors.length > 0) return null;
                const unused = files.filter((f) => !used.has(f.copy));
                if (unused.length === 0) return null;
                return {
                    errors: unused.map((f) => ({
                        text: `vendor/${f.name}@${f.version}/${f.file} was not bundled: the installed ${f.name} is another version; vendor its file again or drop the copy (vendor/README.md)`,
                    })),
                };
            });
        },
    };
}

/**
 * Vite plugin (vitest): the same copies in place of the installed files. The packages'
 * other files load without their source-map comments: their maps name sources they do
 * not ship, which Vite would warn about on every run.
 */
export function vendoredFilesVite() {
    const files = vendoredFiles();
    const names = [...new Set(files.map((f) => f.name))];
    const inPackage = new RegExp(
        `[\\/]node_modules[\\/](?:${names.map((n) => n.replace(/[/]/g, "[\\/]")).join("|")})[\\/].+\\.js$`
    );
    return {
        name: "vendored-files",
        enforce: "pre",
        load(id) {
            const path = id.split("?")[0];
            if (!inPackage.test(path)) return null;
            const vendored = vendoredCopyOf(path, files);
            const code = readFileSync(vendored?.copy ?? path, "utf8");
            return { code: code.replace(/^\/\/# sourceMappingURL=.*$/m, ""), map: null };
        },
    };
}
