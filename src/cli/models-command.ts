import { formatCost } from "../providers/catalogue";
import { resolveEndpoint, resolveModel } from "../providers/models";
import { printError, printWarning, writeStdout } from "../util/terminal-text";
import { loadCatalogue } from "./model-catalogue";
import { refreshListedModels } from "./models-refresh";

/**
 * `north models`: every model with its provider, context, price and
 * readiness; `--refresh` asks the providers what they list.
 */
export async function runModelsCommand(args: readonly string[] = []): Promise<number> {
    const unknown = args.find((a) => a !== "--refresh");
    if (unknown !== undefined) {
        printError(`north models: unknown argument ${unknown} (it takes --refresh)`);
        return 2;
    }
    const loaded = loadCatalogue(process.env);
    if (!loaded.ok) {
        printError(loaded.error);
        return 2;
    }
    for (const warning of loaded.warnings) printWarning(warning);
    const { catalogue } = loaded;
    if (args.includes("--refresh")) {
        const model = resolveModel(catalogue, loaded.selectedModel ?? catalogue.defaultModelId);
        const inUse = new Set(loaded.configured);
        if (model.ok) inUse.add(model.provider.id);
        return refreshListedModels(catalogue, process.env, writeStdout, undefined, inUse);
    }
    const rows = catalogue.models.map((m) => {
        const provider = catalogue.providers.get(m.provider);
        const endpoint = provider ? resolveEndpoint(provider, process.env) : undefined;
        const isDefault =
            m.id === (loaded.selectedModel ?? catalogue.defaultModelId) ||
            m.alias === loaded.selectedModel;
        return [
            `${isDefault ? "*" : " "} ${m.alias}`,
            m.id,
            m.provider,
            `${Math.round(m.contextLimitTokens / 1000)}K`,
            m.pricing
                ? `${formatCost(m.pricing.input)}/${formatCost(m.pricing.output)}`
                : "unknown ($?)",
            !endpoint
                ? "not configured"
                : endpoint.ok
                  ? "ready"
                  : endpoint.problem === "key"
                    ? `needs ${provider?.apiKeyEnv}`
                    : `bad ${endpoint.problem === "baseUrl" ? "base URL" : "proxy"}`,
        ];
    });
    const header = ["  alias", "id", "provider", "context", "in/out per 1M", "status"];
    const all = [header, ...rows];
    const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
    const lines = all.map((r) =>
        r
            .map((cell, i) => cell.padEnd(widths[i] ?? 0))
            .join("  ")
            .trimEnd()
    );
    writeStdout(`${lines.join("\n")}\n* = used when --model is not given\n`);
    return 0;
}
