/**
 * Runs a command's plan against the host. The chat brings `choose` (its
 * picker) and `editFile`; without them (print mode) the commands have
 * already said what print mode offers instead.
 */
import type { EngineHostPort, Outcome, PluginsListing } from "../agent/protocol";
import type { CommandPlan, PickerOption } from "./types";

export interface CommandFront {
    submit: EngineHostPort["submit"];
    /** Resolves with the chosen option's id, null when cancelled (the chat). */
    choose?(title: string, options: PickerOption[], note?: string): Promise<string | null>;
    /** Hands the terminal to the user's editor on `path` until it exits (the chat). */
    editFile?(path: string): { ok: true; warning?: string } | { ok: false; error: string };
    /** Copies the `nth` last answer to the clipboard and says how (the chat). */
    copyAnswer?(nth: number): Promise<Outcome>;
    /** Turns vim keys on or off in the composer, saved as `editorMode` (the chat). */
    toggleVim?(): Outcome;
    /** Opens the plugins view (the chat's `/plugin`). */
    openPlugins?(listing: PluginsListing): Promise<Outcome>;
}

export interface PlanOutcome {
    result: Outcome;
    /** The command ends the app (`/quit`). */
    quit?: boolean;
    /** Said beside the result (an editor's warning). */
    warnings: string[];
}

export async function runPlan(first: CommandPlan, front: CommandFront): Promise<PlanOutcome> {
    const warnings: string[] = [];
    let plan = first;
    for (;;) {
        switch (plan.kind) {
            case "result":
                return { result: plan.result, warnings };
            case "quit":
                return { result: plan.result, quit: true, warnings };
            case "submit":
                plan = await plan.next(front.submit);
                break;
            case "choose":
                if (!front.choose) {
                    return {
                        result: { message: `${plan.title}: needs the chat`, isError: true },
                        warnings,
                    };
                }
                plan = plan.onChoice(await front.choose(plan.title, plan.options, plan.note));
                break;
            case "copy": {
                const copied = front.copyAnswer
                    ? await front.copyAnswer(plan.nth)
                    : { message: "/copy needs the chat", isError: true };
                return { result: copied, warnings };
            }
            case "toggle_vim":
                return {
                    result: front.toggleVim?.() ?? {
                        message: "/vim needs the chat",
                        isError: true,
                    },
                    warnings,
                };
            case "plugins": {
                const opened = (await front.openPlugins?.(plan.listing)) ?? {
                    message: "/plugin's view needs the chat; /plugin list lists the plugins",
                    isError: true,
                };
                return { result: opened, warnings };
            }
            case "edit": {
                const edited = front.editFile?.(plan.path) ?? {
                    ok: false,
                    error: "this front-end cannot open an editor",
                };
                if (edited.ok && edited.warning) warnings.push(edited.warning);
                plan = plan.onEdited(edited);
                break;
            }
            default:
                plan satisfies never;
                throw new Error("unknown plan");
        }
    }
}
