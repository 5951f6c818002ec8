/**
 * The chain's first link alone (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY…),
 * in a module of its own so the bundle gives it a small chunk: with keys in
 * the environment and no profile the whole chain (SSO, STS, INI, metadata
 * clients) would be loaded only to answer from them.
 */
export { fromEnv } from "@aws-sdk/credential-providers";
