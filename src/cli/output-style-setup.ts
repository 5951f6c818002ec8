/**
 * The session's output styles: where they are found, the `outputStyle`
 * setting, and where a pick is kept (`.north/settings.local.json`, written
 * as North's own write under the project's trust).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { OutputStyleSelection } from "../agent/host/output-styles";
import { discoverOutputStyles } from "../project/output-styles";
import type { LoadedPlugin } from "../project/plugins/types";
import { dataDir } from "../storage/paths";
import { saveLocalSetting } from "../storage/project-settings";
import { LOCAL_SETTINGS_FILE } from "../storage/settings/load";
import type { ProjectTrust } from "../storage/trust";

export interface OutputStyleSetup {
    repoRoot: string;
    /** The project's styles are read only when it is trusted (they change the system prompt). */
    trusted: boolean;
    live: Pick<ProjectTrust, "recordOwnWrite" | "isTrustedNow">;
    /** The merged `outputStyle` setting. */
    setting: unknown;
    /** Keep picks in the local settings file (the chat, ACP); print mode and the API do not. */
    savePicks: boolean;
    /** Enabled plugins, as loaded now (their styles are `plugin:style`). */
    plugins?: () => ReadonlyArray<Pick<LoadedPlugin, "id" | "name" | "root" | "outputStyles">>;
    warn(message: string): void;
    env?: NodeJS.ProcessEnv;
}

export function createOutputStyleSelection(o: OutputStyleSetup): OutputStyleSelection {
    const { repoRoot } = o;
    const home = o.env?.HOME || homedir();
    return new OutputStyleSelection({
        setting: typeof o.setting === "string" && o.setting !== "" ? o.setting : undefined,
        warn: o.warn,
        discover: () =>
            discoverOutputStyles({
                repoRoot,
                // Trust covers the style files: one changed since is not used.
                project:
                    o.trusted && o.live.isTrustedNow()
                        ? [
                              join(repoRoot, ".north", "output-styles"),
                              join(repoRoot, ".claude", "output-styles"),
                          ]
                        : [],
                user: [
                    join(dataDir(o.env), "output-styles"),
                    join(home, ".claude", "output-styles"),
                ],
                plugins: o.plugins?.(),
            }),
        save(name) {
            if (!o.savePicks) {
                return {
                    ok: false,
                    error: "print mode and the Node API do not change your settings",
                };
            }
            const path = join(repoRoot, LOCAL_SETTINGS_FILE);
            try {
                if (o.live.recordOwnWrite(() => saveLocalSetting(repoRoot, "outputStyle", name))) {
                    return { ok: true, path };
                }
                return {
                    ok: false,
                    error: `the project is not trusted, so North does not write ${LOCAL_SETTINGS_FILE}`,
                };
            } catch (error) {
                return { ok: false, error: (error as Error).message };
            }
        },
    });
}
