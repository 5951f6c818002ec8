/**
 * What an ACP session offers the editor to switch: North's modes (the
 * consent issue's approval modes) and the model, as a `select` config option
 * listing the catalogue's models whose provider key is set.
 */
import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import { MODES, type Mode } from "../../agent/events";
import type { ModelInfo } from "../../providers/catalogue";
import { type ModelCatalogue, resolveEndpoint } from "../../providers/models";

const MODE_WORDS: Record<Mode, { name: string; description: string }> = {
    ask: {
        name: "Ask",
        description: "Read-only: North reads and searches, and changes nothing.",
    },
    agent: {
        name: "Agent",
        description: "Every tool; each edit and command is asked first (as the rules say).",
    },
    "accept-edits": {
        name: "Accept edits",
        description:
            "Edits are applied without review; commands and protected configuration are still asked.",
    },
    plan: {
        name: "Plan",
        description: "North plans first and changes nothing until you accept the plan.",
    },
};

/** A mode's name and what it does, in the words the editor's mode menu shows. */
export function modeWords(mode: Mode): { name: string; description: string } {
    return MODE_WORDS[mode];
}

export const MODEL_CONFIG_ID = "model";

export function isMode(value: string): value is Mode {
    return (MODES as string[]).includes(value);
}

export function modeState(current: Mode): SessionModeState {
    return {
        currentModeId: current,
        availableModes: MODES.map((id) => ({ id, ...MODE_WORDS[id] })),
    };
}

/** The models a session may switch to: those whose provider has its key. */
export function readyModels(catalogue: ModelCatalogue, env: NodeJS.ProcessEnv): ModelInfo[] {
    return catalogue.models.filter((model) => {
        const provider = catalogue.providers.get(model.provider);
        return provider !== undefined && resolveEndpoint(provider, env).ok;
    });
}

export function configOptions(
    current: ModelInfo,
    catalogue: ModelCatalogue,
    env: NodeJS.ProcessEnv
): SessionConfigOption[] {
    const models = readyModels(catalogue, env);
    // A model picked by id (provider:model-id) may not be listed: it stays selectable.
    if (!models.some((m) => m.id === current.id)) models.unshift(current);
    return [
        {
            id: MODEL_CONFIG_ID,
            name: "Model",
            description: "The model that answers this session's prompts.",
            category: "model",
            type: "select",
            currentValue: current.id,
            options: models.map((m) => ({ value: m.id, name: m.display, description: m.alias })),
        },
    ];
}
