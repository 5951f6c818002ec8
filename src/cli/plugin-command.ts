/** `north plugin …`: marketplaces and Claude Code plugins (built by issue 39's marketplace part). */
export async function runPluginCommand(argv: string[], _version: string): Promise<number> {
    process.stderr.write(`north plugin ${argv.join(" ")}: not built yet\n`);
    return 1;
}
