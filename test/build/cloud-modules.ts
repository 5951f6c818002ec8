/**
 * The cloud providers' libraries and North's own cloud provider modules: none
 * may load on `north --version`, the chat's launch or the print path's first
 * request to Anthropic. Matched on the source paths a chunk's source map names
 * (or a file's own path), so the check holds once the packages are installed
 * and whatever chunks esbuild puts them in.
 */
export const CLOUD_MODULE =
    /(^|\/)node_modules\/(@aws-sdk|@smithy|@aws-crypto|@azure|@google|@google-cloud|google-auth-library|gaxios|gcp-metadata|gtoken|google-logging-utils|@anthropic-ai\/(bedrock|vertex|foundry)-sdk)\/|(^|\/)src\/providers\/(bedrock|vertex|gemini|azure|google-auth)[/.-]/;

export function cloudModules(sources: Iterable<string>): string[] {
    return [...sources].filter((source) => CLOUD_MODULE.test(source));
}
