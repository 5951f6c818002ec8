import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";

// North's entry for the ACP agent registry (github.com/agentclientprotocol/registry): the folder
// is copied there as `north/`. Checked against the registry's published schema and the rules its
// CI adds (.github/workflows/build_registry.py): folder named for the id, a pinned npm version
// equal to the entry's, a 16×16 monochrome icon.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRY_DIR = join(ROOT, "acp-registry", "north");
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    name: string;
    version: string;
    bin: Record<string, string>;
};

interface RegistryEntry {
    id: string;
    version: string;
    distribution: { npx?: { package: string; args?: string[] } };
}

function entry(): RegistryEntry {
    return JSON.parse(readFileSync(join(ENTRY_DIR, "agent.json"), "utf8")) as RegistryEntry;
}

describe("the ACP registry entry", () => {
    it("matches the registry's agent schema", () => {
        const schema = JSON.parse(
            readFileSync(join(ROOT, "test/build/fixtures/acp-registry-agent.schema.json"), "utf8")
        ) as object;
        const ajv = new Ajv({ allErrors: true });
        addFormats(ajv);
        const validate = ajv.compile(schema);
        expect(validate(entry()), JSON.stringify(validate.errors)).toBe(true);
    });

    it("is in a folder named for its id, holding only what the registry reads", () => {
        expect(entry().id).toBe("north");
        expect(readdirSync(ENTRY_DIR).sort()).toEqual(["agent.json", "icon.svg"]);
    });

    it("starts this package's version of `north acp` through npx", () => {
        const npx = entry().distribution.npx;
        expect(entry().version).toBe(PACKAGE.version);
        expect(npx?.package).toBe(`${PACKAGE.name}@${PACKAGE.version}`);
        // npx runs a package's only bin; `acp` is then its first argument.
        expect(Object.keys(PACKAGE.bin)).toEqual(["north"]);
        expect(npx?.args).toEqual(["acp"]);
    });

    it("has a square 16×16 icon drawn in currentColor only", () => {
        const svg = readFileSync(join(ENTRY_DIR, "icon.svg"), "utf8");
        expect(svg).toMatch(/<svg[^>]*\swidth="16"[^>]*\sheight="16"/);
        expect(svg).toMatch(/viewBox="0 0 16 16"/);
        const paints = [...svg.matchAll(/\b(?:fill|stroke)="([^"]*)"/g)].map((m) => m[1]);
        expect(paints.length).toBeGreaterThan(0);
        expect(paints.filter((paint) => paint !== "currentColor" && paint !== "none")).toEqual([]);
        expect(svg).not.toMatch(/style=/);
    });
});
