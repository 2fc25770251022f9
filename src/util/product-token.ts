/**
 * The robots.txt product token adsnap obeys (RFC 9309 §2.2.1) and names itself by in its
 * User-Agent: defined once, here, for the fetch layer and the robots verdicts alike.
 */
export const productToken = 'adsnap';
