/**
 * A destination field's name as a column or row heading where its label is not at hand (records
 * keep field names, not the destination's labels): 'postalCode' -> 'Postal code',
 * 'MailingPostalCode' -> 'Mailing postal code', 'addressLine1' -> 'Address line 1',
 * 'Donor_Level__c' -> 'Donor level', 'lookupId' -> 'Lookup ID'.
 */
const KEPT = new Map([['id', 'ID'], ['url', 'URL'], ['zip', 'ZIP']]);

export function fieldHeading(name: string): string {
  const words = name
    .replace(/__c$/i, '')
    .replace(/([a-z])([A-Z0-9])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(/[\s_.]+/)
    .filter(Boolean);
  if (!words.length) return name;
  // a name all in capitals (FIRST_NAME) says nothing by its capitals
  const shouting = name === name.toUpperCase() && words.length > 1;
  return words.map((w, i) => {
    const lower = w.toLowerCase();
    // an acronym stays one (ID, URL, and any word written in capitals of more than one letter)
    const word = KEPT.get(lower) ?? (!shouting && w.length > 1 && w === w.toUpperCase() && /[A-Z]/.test(w) ? w : lower);
    return i === 0 ? word[0]!.toUpperCase() + word.slice(1) : word;
  }).join(' ');
}
