/**
 * "Always" answers saved in `.north/settings.local.json` never write through
 * a link that leads out of the project (a hostile repository's link to
 * ~/.bashrc); a link inside the project is written through and stays a link.
 */
import {
    lstatSync,
    mkdirSync,
    mkdtempSync,
    readFileSync,
    rmSync,
    symlinkSync,
    writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { saveLocalAnswer } from "../../src/storage/project-settings";

let base: string;
let home: string;
let repo: string;

beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), "north-local-settings-"));
    home = join(base, "home");
    repo = join(base, "repo");
    mkdirSync(home, { recursive: true });
    mkdirSync(join(repo, ".north"), { recursive: true });
});
afterEach(() => {
    rmSync(base, { recursive: true, force: true });
});

const isLink = (path: string): boolean => lstatSync(path).isSymbolicLink();

describe("saving an approval in the project's local settings", () => {
    it("refuses .north/settings.local.json linked to ~/.bashrc, which stays as it was", () => {
        const bashrc = join(home, ".bashrc");
        writeFileSync(bashrc, "");
        const local = join(repo, ".north", "settings.local.json");
        symlinkSync(bashrc, local);

        expect(() => saveLocalAnswer(repo, { allowCommand: "ls" })).toThrow(
            /leads through a symbolic link to .*\.bashrc, outside the project/
        );
        expect(readFileSync(bashrc, "utf8")).toBe("");
        expect(isLink(local)).toBe(true);
    });

    it("writes through a link inside the project and keeps it a link", () => {
        writeFileSync(join(repo, "team-local.json"), '{"model":"x"}\n');
        symlinkSync("../team-local.json", join(repo, ".north", "settings.local.json"));
        saveLocalAnswer(repo, { allowCommand: "npm test" });
        expect(isLink(join(repo, ".north", "settings.local.json"))).toBe(true);
        expect(JSON.parse(readFileSync(join(repo, "team-local.json"), "utf8"))).toEqual({
            model: "x",
            allowedCommands: ["npm test"],
        });
    });
});
