/** This package's version, sent in the User-Agent. */
export const SDK_VERSION = '0.1.0';
