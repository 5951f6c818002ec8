/**
 * Settings files North rewrites keep how the user set them up: a symlink (a
 * dotfiles link) stays a link and its target gets the new text; a project
 * file that leads out of the project is refused and nothing outside changes.
 */
import {
    lstatSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    readdirSync,
    rmSync,
    statSync,
    symlinkSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeConfigFileAtomicSync } from "../../src/util/atomic-write";

let base: string;
let home: string;
let repo: string;

beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "north-config-write-"));
    home = join(base, "home");
    repo = join(base, "repo");
    mkdirSync(join(home, "dotfiles"), { recursive: true });
    mkdirSync(join(repo, ".north"), { recursive: true });
});
afterEach(() => {
    rmSync(base, { recursive: true, force: true });
});

const isLink = (path: string): boolean => lstatSync(path).isSymbolicLink();

describe("writeConfigFileAtomicSync", () => {
    it("writes a user file through its symlink: the link stays, the target changes, mode kept", () => {
        const target = join(home, "dotfiles", "north.json");
        writeFileSync(target, "{}\n", { mode: 0o640 });
        const config = join(home, "config.json");
        symlinkSync("dotfiles/north.json", config);

        writeConfigFileAtomicSync(config, '{"a":1}\n');

        expect(isLink(config)).toBe(true);
        expect(readFileSync(target, "utf8")).toBe('{"a":1}\n');
        expect(statSync(target).mode & 0o777).toBe(0o640);
        // The temp file went beside the target and is gone.
        expect(readdirSync(join(home, "dotfiles"))).toEqual(["north.json"]);
        expect(readdirSync(home).sort()).toEqual(["config.json", "dotfiles"]);
    });

    it("follows a chain of links, and a dangling one creates its target", () => {
        const target = join(home, "dotfiles", "new.json");
        symlinkSync(target, join(home, "middle.json"));
        symlinkSync(join(home, "middle.json"), join(home, "config.json"));

        writeConfigFileAtomicSync(join(home, "config.json"), "x\n", { mode: 0o600 });

        expect(isLink(join(home, "config.json"))).toBe(true);
        expect(isLink(join(home, "middle.json"))).toBe(true);
        expect(readFileSync(target, "utf8")).toBe("x\n");
        expect(statSync(target).mode & 0o777).toBe(0o600);
    });

    it("refuses a project file whose link leads out of the project; the target is untouched", () => {
        const bashrc = join(home, ".bashrc");
        writeFileSync(bashrc, "");
        const local = join(repo, ".north", "settings.local.json");
        symlinkSync(bashrc, local);

        expect(() => writeConfigFileAtomicSync(local, "{}\n", { within: repo })).toThrow(
            /settings\.local\.json leads through a symbolic link to .*\.bashrc, outside the project/
        );
        expect(readFileSync(bashrc, "utf8")).toBe("");
        expect(isLink(local)).toBe(true);
        expect(readdirSync(home)).toEqual([".bashrc", "dotfiles"]);
        expect(readdirSync(join(repo, ".north"))).toEqual(["settings.local.json"]);
    });

    it("refuses a project folder that is a link out of the project", () => {
        rmSync(join(repo, ".north"), { recursive: true });
        symlinkSync(join(home, "dotfiles"), join(repo, ".north"));
        expect(() =>
            writeConfigFileAtomicSync(join(repo, ".north", ".gitignore"), "x\n", { within: repo })
        ).toThrow(/outside the project/);
        expect(readdirSync(join(home, "dotfiles"))).toEqual([]);
    });

    it("writes through a link that stays inside the project", () => {
        writeFileSync(join(repo, "shared.json"), "{}\n");
        symlinkSync("../shared.json", join(repo, ".north", "settings.local.json"));
        writeConfigFileAtomicSync(join(repo, ".north", "settings.local.json"), '{"b":2}\n', {
            within: repo,
        });
        expect(isLink(join(repo, ".north", "settings.local.json"))).toBe(true);
        expect(readFileSync(join(repo, "shared.json"), "utf8")).toBe('{"b":2}\n');
    });
});
