/**
 * A marketplace source as a user types it (`north plugin marketplace add`,
 * `/plugin`): `owner/repo[@ref]` for GitHub, a git URL with an optional
 * `#ref`, or a local path. Only git sources: North pins a marketplace to a
 * commit, so a bare `marketplace.json` URL or an npm package is refused.
 */
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import type { PluginSource } from "../../storage/plugins/store";
import { PluginError } from "./plugin-error";

const GITHUB_REPO =
    /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)\/([A-Za-z0-9._-]+?)(?:\.git)?(?:@([^\s@]+))?$/;
const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/;
const GIT_SCHEMES = ["https://", "http://", "ssh://", "git://", "file://"];

function splitRef(text: string): { url: string; ref?: string } {
    const hash = text.lastIndexOf("#");
    if (hash < 0) return { url: text };
    const ref = text.slice(hash + 1);
    if (ref === "")
        throw new PluginError(`${text}: nothing after "#" (a branch or tag was expected)`);
    return { url: text.slice(0, hash), ref };
}

export function parsePluginSourceText(text: string, cwd: string): PluginSource {
    const source = text.trim();
    if (source === "")
        throw new PluginError(
            "a marketplace source is needed: owner/repo, a git URL or a local path"
        );
    const lower = source.toLowerCase();
    if (lower.startsWith("npm:") || lower.startsWith("npm ")) {
        throw new PluginError(
            `${source}: npm sources are not supported; add the marketplace's git repository instead`
        );
    }
    const scheme = GIT_SCHEMES.find((prefix) => lower.startsWith(prefix));
    if (scheme !== undefined) {
        const { url, ref } = splitRef(source);
        if (/\.json$/i.test(url) && (scheme === "https://" || scheme === "http://")) {
            throw new PluginError(
                `${source}: a URL to a marketplace.json is not supported (North pins a marketplace ` +
                    `to a git commit); add the repository's git URL instead`
            );
        }
        if (scheme === "file://")
            return {
                kind: "local",
                path: resolve(decodeURIComponent(url.slice(7))),
                ...(ref ? { ref } : {}),
            };
        return { kind: "git", url, ...(ref ? { ref } : {}) };
    }
    if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source)) {
        throw new PluginError(
            `${source}: this kind of source is not supported; use owner/repo, a git URL ` +
                `(https, ssh, git, file) or a local path`
        );
    }
    if (SCP_LIKE.test(source)) {
        const { url, ref } = splitRef(source);
        return { kind: "git", url, ...(ref ? { ref } : {}) };
    }
    const github = GITHUB_REPO.exec(source);
    if (github && !source.startsWith(".")) {
        return {
            kind: "github",
            repo: `${github[1]}/${github[2]}`,
            ...(github[3] ? { ref: github[3] } : {}),
        };
    }
    const { url: pathText, ref } = splitRef(source);
    const expanded =
        pathText === "~"
            ? homedir()
            : pathText.startsWith("~/")
              ? resolve(homedir(), pathText.slice(2))
              : pathText;
    const path = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
    return { kind: "local", path, ...(ref ? { ref } : {}) };
}

/** What git fetches for a source: a URL, or a local repository's path. */
export function sourceFetchUrl(source: PluginSource): string {
    switch (source.kind) {
        case "github":
            return `https://github.com/${source.repo}.git`;
        case "git":
            return source.url;
        case "local":
            return source.path;
    }
}

/** As a person reads it: `github:owner/repo@ref`, the URL, the path. */
export function describeSource(source: PluginSource): string {
    const ref = source.ref ? `@${source.ref}` : "";
    switch (source.kind) {
        case "github":
            return `github:${source.repo}${ref}`;
        case "git":
            return `${source.url}${source.ref ? `#${source.ref}` : ""}`;
        case "local":
            return `${source.path}${source.ref ? `#${source.ref}` : ""}`;
    }
}

/** Two sources name the same repository (and ref). */
export function sameSource(a: PluginSource, b: PluginSource): boolean {
    return describeSource(a) === describeSource(b);
}
