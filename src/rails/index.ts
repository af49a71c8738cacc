/**
 * Rails as merchants see them before they send: which rails a phone number belongs to (number
 * resolution). Reached from outside only through this module.
 */
export { NUMBER_PROBLEM_MESSAGES, resolveNumber, type NumberRail, type NumberResolution } from './resolve-number.ts';
export { activeRails, isRailUsable } from './usable-rails.ts';
