/**
 * Which settings file has the last word on `enabledPlugins`: yours, then the
 * project's shared files, then the project's local (personal) files, so a
 * plugin you turned off in your own local file stays off whatever a shared
 * file of the repository says.
 */
import { describe, expect, it } from "vitest";
import { enabledPluginsSetting } from "../../src/agent/plugins/enabled";
import type { LoadedSettings } from "../../src/storage/settings/load";

const layer = (kind: "user", enabledPlugins: Record<string, boolean>) =>
    ({
        kind,
        path: `${kind}.json`,
        settings: { enabledPlugins },
    }) as LoadedSettings["layers"][number];

describe("enabledPlugins precedence", () => {
    it("a local false beats a shared true, North's or Claude Code's", () => {
        const settings = { layers: [layer("user", { "a@m": false, "b@m": true, "c@m": true })] };
        const { enabledPlugins, warnings } = enabledPluginsSetting(settings, {
            ".north/settings.json": JSON.stringify({ enabledPlugins: { "a@m": true } }),
            ".north/settings.local.json": JSON.stringify({ enabledPlugins: { "b@m": false } }),
            ".claude/settings.json": JSON.stringify({
                enabledPlugins: { "b@m": true, "c@m": false },
            }),
            ".claude/settings.local.json": JSON.stringify({ enabledPlugins: { "c@m": true } }),
        });
        expect(warnings).toEqual([]);
        // a: the project's shared file over yours; b: your North local file over Claude Code's
        // shared file; c: Claude Code's local file over its shared one.
        expect(enabledPlugins).toEqual({ "a@m": true, "b@m": false, "c@m": true });
    });

    it("a Claude Code file whose enabledPlugins is not an object is ignored with a warning", () => {
        const { enabledPlugins, warnings } = enabledPluginsSetting(
            { layers: [] },
            {
                ".claude/settings.json": JSON.stringify({ enabledPlugins: ["a@m"] }),
                ".claude/settings.local.json": "not json",
            }
        );
        expect(enabledPlugins).toEqual({});
        expect(warnings).toHaveLength(1);
    });
});
