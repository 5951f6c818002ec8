/**
 * The `sandbox` setting from the settings files to the session's sandbox:
 * validation, the layers' say, and the one warning when it cannot work.
 */
import { describe, expect, it } from "vitest";
import { createSessionSandbox } from "../../src/cli/sandbox-setting";
import type { SettingsLayer } from "../../src/storage/settings/load";
import { validateSettings } from "../../src/storage/settings/schema";

const USER = "/home/ann/.config/north/config.json";
const PROJECT = "/repo/.north/settings.json";

function layer(kind: SettingsLayer["kind"], path: string, json: unknown): SettingsLayer {
    const scope = kind === "user" ? "user" : "project";
    const { settings, issues } = validateSettings(json, path, scope);
    expect(issues).toEqual([]);
    return { kind, path, settings };
}

describe("the sandbox setting", () => {
    it("accepts true or the object shape in user and project files", () => {
        for (const value of [true, false, { network: true, writable: ["~/.npm"] }, {}]) {
            expect(validateSettings({ sandbox: value }, USER, "user").settings.sandbox).toEqual(
                value
            );
            expect(validateSettings({ sandbox: value }, PROJECT, "project").issues).toEqual([]);
        }
    });

    it("reports a misspelt key by name and a bad value as invalid", () => {
        const typo = validateSettings({ sandbox: { netwrok: true } }, USER, "user");
        expect(typo.issues).toEqual([
            {
                message: `${USER}: unknown setting "sandbox.netwrok" (did you mean "network"?); ignored`,
                fatal: false,
            },
        ]);
        const bad = validateSettings({ sandbox: "yes" }, USER, "user");
        expect(bad.settings.sandbox).toBeUndefined();
        expect(bad.issues[0]!.message).toMatch(/config\.json is invalid: sandbox: /);
    });
});

describe("createSessionSandbox", () => {
    it("is undefined when neither the flag nor a file asks for it", () => {
        const warnings: string[] = [];
        const layers = [layer("user", USER, { theme: "dark" })];
        expect(createSessionSandbox(layers, false, (m) => warnings.push(m))).toBeUndefined();
        expect(warnings).toEqual([]);
    });

    it("takes the user's shape; a project cannot turn it off or open the network", () => {
        const warnings: string[] = [];
        const sandbox = createSessionSandbox(
            [
                layer("user", USER, { sandbox: { network: true } }),
                layer("project", PROJECT, { sandbox: false }),
                layer("local", "/repo/.north/settings.local.json", { sandbox: { network: false } }),
            ],
            false,
            (m) => warnings.push(m),
            { home: "/home/ann" }
        );
        expect(sandbox?.policy).toEqual({ network: false, writable: [] });
        expect(sandbox?.description).toBe("writes only in the project and $TMPDIR; no network");
        expect(warnings).toEqual([
            `${PROJECT}: a project may turn the sandbox on, not turn it off; that part is ignored (set it in ~/.config/north/config.json)`,
        ]);
    });

    it("makes --add-dir folders writable inside, as they are to the tools", () => {
        const sandbox = createSessionSandbox(
            [layer("user", USER, { sandbox: { writable: ["~/.cache/npm"] } })],
            false,
            () => {},
            { home: "/home/ann" },
            ["/work/shared-lib"]
        );
        expect(sandbox?.policy.writable).toEqual(["/home/ann/.cache/npm", "/work/shared-lib"]);
        expect(createSessionSandbox([], false, () => {}, {}, ["/work/shared-lib"])).toBeUndefined();
    });

    it("--sandbox turns it on; an unavailable sandbox is reported once, however often it is asked", async () => {
        const warnings: string[] = [];
        const sandbox = createSessionSandbox([], true, (m) => warnings.push(m), {
            probe: async () => ({ ok: false, reason: "bwrap is not installed" }),
        });
        expect(sandbox).toBeDefined();
        await sandbox!.availability();
        await sandbox!.availability();
        expect(warnings).toEqual([
            'the sandbox was requested but is not available: bwrap is not installed. Commands will not run until it works (on Debian/Ubuntu: apt install bubblewrap), or until the sandbox is turned off (no --sandbox, no "sandbox" setting).',
        ]);
    });
});
