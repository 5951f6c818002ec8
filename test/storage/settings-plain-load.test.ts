import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadUserSettings } from "../../src/storage/settings/load";
import { plainUserLayers, plainUserSettings } from "../../src/storage/settings/plain-load";
import {
    SETTINGS_KEYS,
    userFileJsonSchema,
    validateSettings,
} from "../../src/storage/settings/schema";

let configDir: string;
const env = () => ({ NORTH_CONFIG_DIR: configDir });

beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), "north-plain-settings-"));
});
afterEach(() => rmSync(configDir, { recursive: true, force: true }));

const USER_KEYS = Object.entries(SETTINGS_KEYS)
    .filter(([, spec]) => (spec.scopes as readonly string[]).includes("user"))
    .map(([key]) => key)
    .sort();

// Values of every kind, for every user key: the generated check must accept exactly
// what the zod check accepts without a word, and give the same settings.
const SAMPLES: unknown[] = [
    "x",
    "",
    "dark",
    "light",
    "auto",
    "Dark",
    true,
    false,
    0,
    1.5,
    null,
    [],
    ["a"],
    {},
    { PreToolUse: [] },
    { a: { command: "x", extra: 1 } },
    JSON.parse('{"__proto__": {"x": 1}}') as unknown,
    // Structured keys: providers, models, permissions, sandbox, webFetch, subagents.
    { ollama: { api: "openai-chat", baseUrl: "http://127.0.0.1:11434/v1" } },
    { gw: { baseUrl: "https://llm.example.com/v1", apiKeyEnv: "GW", headers: { "x-a": "b" } } },
    { p: { api: "gemini" } },
    { p: { baseUrl: "localhost:11434/v1" } },
    { p: { baseUrl: " http://x " } },
    { p: { baseUrl: "not a url" } },
    { p: { apiKeyEnv: "" } },
    { p: { headers: { a: 1 } } },
    { p: { baseUrl: "http://x", baseURL: "y" } },
    [{ alias: "q", id: "qwen", provider: "ollama" }],
    [{ alias: "q", id: "qwen", provider: "ollama", contextLimitTokens: 32768, images: true }],
    [{ alias: "q", id: "q", provider: "p", pricing: { input: 1, output: 2, cacheRead: 0.1 } }],
    [{ alias: "q", id: "q", provider: "p", pricing: { input: 1 } }],
    [{ alias: "q", id: "q", provider: "p", pricing: { input: -1, output: 2 } }],
    [{ alias: "q", id: "q", provider: "p", contextLimitTokens: 1.5 }],
    [{ alias: "q", id: "q", provider: "p", maxOutputTokens: 0 }],
    [{ alias: "", id: "q", provider: "p" }],
    [{ id: "q", provider: "p" }],
    [{ alias: "q", id: "q", provider: "p", extra: 1 }],
    { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"], ask: [] },
    { allow: "not a list" },
    { allow: [], other: [] },
    { enabled: true, network: false, writable: ["~/.cache/npm"] },
    { writable: [""] },
    { network: "yes" },
    { allowPrivateNetwork: true },
    { allowPrivateNetwork: 1 },
    { tools: ["Read", "Edit"] },
    { tools: [""] },
];

describe("the user settings check generated from schema.ts, next to zod's", () => {
    it("is generated for exactly the user keys of schema.ts", () => {
        const properties = userFileJsonSchema().properties as Record<string, unknown>;
        expect(Object.keys(properties).sort()).toEqual(USER_KEYS);
    });

    it("accepts only values the full check accepts without a word, with the same result", () => {
        let accepted = 0;
        for (const key of USER_KEYS) {
            for (const value of SAMPLES) {
                const json = { [key]: value };
                const label = `${key}: ${JSON.stringify(value)}`;
                const full = validateSettings(json, "config.json", "user");
                const plain = plainUserSettings(JSON.stringify(json));
                if (full.issues.length > 0) expect(plain, label).toBeUndefined();
                if (plain !== undefined) {
                    expect(full.issues, label).toEqual([]);
                    expect(plain, label).toEqual(full.settings);
                    accepted++;
                }
            }
        }
        // Every key takes some of the samples: the plain path is the usual one.
        expect(accepted).toBeGreaterThanOrEqual(USER_KEYS.length * 2);
    });

    it("leaves every other file to the full check: unknown or project keys, bad JSON, a non-object", () => {
        for (const text of [
            '{"them": "dark"}',
            '{"editsAutoAccept": true}',
            '{"theme": "dark",}',
            "[]",
            "",
        ]) {
            expect(plainUserSettings(text), text).toBeUndefined();
        }
    });

    it("reads plain files as loadUserSettings does, and leaves the rest (every warning or error) to it", () => {
        const cases: Array<[string | null, string | null]> = [
            [null, null],
            [null, '{"theme": "light", "mouse": false, "selectedModel": "opus"}'],
            ['{"hooks": {"Stop": []}}', '{"theme": "auto"}'],
            [null, '{"theme": "blue"}'],
            ['{"theme": 3}', '{"mouse": true}'],
            [null, '{"them": "dark"}'],
            [null, '{"providers": {"p": {"baseUrl": "http://x", "baseURL": "y"}}}'],
            [null, '{"editsAutoAccept": true}'],
            [
                '{"sandbox": {"network": true}, "webFetch": {"allowPrivateNetwork": true}}',
                JSON.stringify({
                    providers: {
                        ollama: { api: "openai-chat", baseUrl: "http://127.0.0.1:11434/v1" },
                    },
                    models: [{ alias: "q", id: "qwen", provider: "ollama", images: false }],
                    permissions: { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"] },
                    subagents: { tools: ["Read"] },
                }),
            ],
            ["not json", null],
            [null, "not json"],
        ];
        const plainDeclined: string[] = [];
        for (const [settingsJson, configJson] of cases) {
            rmSync(configDir, { recursive: true, force: true });
            mkdirSync(configDir, { recursive: true });
            if (settingsJson !== null)
                writeFileSync(join(configDir, "settings.json"), settingsJson);
            if (configJson !== null) writeFileSync(join(configDir, "config.json"), configJson);
            const label = `${settingsJson} / ${configJson}`;
            const plain = plainUserLayers(env());
            if (plain !== undefined) expect(plain, label).toEqual(loadUserSettings(env()));
            else plainDeclined.push(label);
        }
        // Exactly the files the full check has something to say about.
        expect(plainDeclined).toEqual([
            'null / {"theme": "blue"}',
            '{"theme": 3} / {"mouse": true}',
            'null / {"them": "dark"}',
            'null / {"providers": {"p": {"baseUrl": "http://x", "baseURL": "y"}}}',
            'null / {"editsAutoAccept": true}',
            "not json / null",
            "null / not json",
        ]);
    });

    it("leaves an unreadable config.json to the full check, which refuses it", () => {
        mkdirSync(join(configDir, "config.json"));
        expect(plainUserLayers(env())).toBeUndefined();
        expect(loadUserSettings(env()).ok).toBe(false);
    });
});
