/**
 * Common English (and a few Spanish) given names with their nicknames and spelling variants, so
 * that Bill meets William and Kate meets Katherine in one first-name match key.
 *
 * Each group is 'canonical: variants', every name written as `foldName` writes it (lower case,
 * letters only). A name's key is decided in two passes, so it never depends on anything but this
 * table:
 * 1. every canonical name is its own key ('frank' is not a canonical here, 'francis' is);
 * 2. any other name takes the canonical of the FIRST group that lists it ('chris' is listed by
 *    christopher, christine and christina, so its key is 'christopher').
 * A name in several groups still relates to all of them: `nicknameGroups` lists every canonical,
 * and the first-name similarity rates two names sharing any group as close, not equal.
 *
 * Left out on purpose: short forms now given as names of their own, which would merge different
 * people (Liam, Lisa, Nancy).
 */

const GROUPS = `
william: bill billy will willie willy wills
robert: bob bobby rob robbie robby bert bertie
richard: dick rick ricky rich richie dickie
james: jim jimmy jamie jimbo jas
john: jack johnny jon jonny
katherine: catherine kathryn katharine cathryn catharine kate katie katy kathy cathy kat kitty kay
kathleen: kathy kath kay kathie
margaret: peggy peg maggie meg margie marge madge greta maisie
elizabeth: elisabeth eliza liz lizzie lizzy liza beth betty bette betsy bess bessie libby elsie lisbeth
michael: mike mikey mick mickey
thomas: tom tommy thom
joseph: joe joey jo
charles: charlie chuck chas chaz chip
christopher: chris kit topher
christine: chris chrissy tina kristine christy
christina: chris chrissy tina kristina
daniel: dan danny
david: dave davy davey
edward: ed eddie eddy ted teddy ned
anthony: tony antony
matthew: mathew matt matty
andrew: andy drew
steven: stephen steve stevie
timothy: tim timmy
kenneth: ken kenny
ronald: ron ronnie
donald: don donnie donny
gregory: greg
jeffrey: jeffery jeff geoffrey geoff
joshua: josh
benjamin: ben benny benji
samuel: sam sammy
samantha: sam sammie sammy
patrick: pat paddy
patricia: pat patty patsy trish tricia trisha
alexander: alex alec al sandy xander lex
alexandra: alex alexa sandra sandy lexi lexie alix
nicholas: nicolas nick nicky
nicole: nikki nicky
jonathan: jon jonny
jennifer: jen jenny jenn jenni
jessica: jess jessie
deborah: debra debbie deb debby
susan: sue susie suzy
suzanne: sue susie suzy susanne
rebecca: becky becca reba
barbara: barb babs barbie bobbie
dorothy: dot dottie dolly
virginia: ginny ginger
victoria: vicky vicki vickie tori
pamela: pam
cynthia: cindy cyndi
sandra: sandy sandi
sarah: sara sally sadie
mary: molly polly mae mamie
martha: marty mattie
judith: judy jude
frances: fran frannie frankie
francis: frank frankie fran
franklin: frank
frederick: fred freddy freddie fritz
alfred: al alf alfie fred freddie
albert: al bert bertie
alan: allan allen al
henry: hank harry hal
harold: harry hal
lawrence: larry laurence
leonard: leo len lenny
louis: lou louie lewis
louise: lou lulu
raymond: ray
gerald: gerry jerry
geraldine: gerry geri
jerome: jerry
jeremy: jerry jem
eugene: gene
walter: walt wally
theodore: ted teddy theo
terence: terry terrance
teresa: theresa terry tess tessa tessie
phillip: philip phil pip
peter: pete
stanley: stan
vincent: vince vinny
zachary: zachery zach zack zak
abigail: abby abbie gail
amanda: mandy manda
angela: angie
anne: ann annie nan nannie
arthur: art artie
bernard: bernie barney
beatrice: bea trixie
beverly: bev
bradley: brad
bridget: bridie biddy
caroline: carolyn carol carole carrie
charlotte: charlie lottie lotte
clifford: cliff
douglas: doug
dennis: denny
edwin: ed eddie
edmund: ed ned
eleanor: ellie nell nora elinor
emily: emmy millie
emma: emmy
ernest: ernie
evelyn: evie eve
gabriel: gabe
gabrielle: gabby gabi
herbert: herb bert
howard: howie
isabel: isabella isabelle bella izzy issy
jacob: jake
janet: jan
jane: janie
josephine: jo josie
julia: julie jules
mitchell: mitch
nathaniel: nate nat
nathan: nate nat
norman: norm
oliver: ollie
rachel: rach
randolph: randy
russell: russ rusty
stephanie: steph stephie
valerie: val
zoe: zoey
brian: bryan
mark: marc
sean: shawn shaun
eric: erik
carl: karl
erica: erika
kristen: kristin kirsten
megan: meghan meagan
ashley: ashleigh
lindsay: lindsey
kelly: kelli kellie
tracy: tracey
stacy: stacey
sophia: sofia sophie
brittany: britney brittney
caitlin: katelyn kaitlyn
aaron: ron ronnie
abraham: abe bram
adeline: addie
adelaide: addie
agnes: aggie
alberta: bertie
alvin: al
antoinette: toni netta
arnold: arnie
augustus: gus
augusta: gussie
barnabas: barney
bartholomew: bart
bernadette: bernie
bertha: bertie
calvin: cal
cameron: cam
cassandra: cassie
cecilia: cissy celia
chester: chet
clarence: clare
constance: connie
cornelius: neil
curtis: curt
cyrus: cy
delores: dolores dee lola
dominic: dom
edith: edie
edgar: ed
elijah: eli
ellen: ellie nell nellie
esther: essie
estelle: stella
ezekiel: zeke
florence: flo flossie
georgina: georgie
gertrude: gertie trudy
gilbert: gil
gordon: gordy
gwendolyn: gwen wendy
harriet: hattie
helen: nell nellie
isaac: ike
jacqueline: jackie jacquie
janice: jan
jeanette: nettie
joanna: jo joanne
johanna: jo
katrina: trina
kimberly: kim
laura: laurie
leslie: les
lillian: lily lil
lorraine: lori
lucille: lucy
lucinda: cindy lucy
madeline: madeleine maddie madge
maxwell: max
maximilian: max
melissa: mel missy
melanie: mel
mildred: millie
miriam: mimi
montgomery: monty
mortimer: mort
natalie: nat
natasha: tasha
olivia: livvy liv
oswald: ozzie
penelope: penny
percival: percy
philippa: pippa
priscilla: cilla
prudence: prue
reginald: reggie reg
rodney: rod
roger: rog
roland: rollie
rosemary: rosie
roxanne: roxy
rudolph: rudy
sebastian: seb
sidney: sid
solomon: sol
sylvester: sly
tabitha: tabby
tiffany: tiff
tobias: toby
veronica: ronnie
vernon: vern
wesley: wes
wilfred: wilf
winifred: winnie
winston: win
woodrow: woody
jose: pepe
anna: ana
francisco: paco pancho
alejandro: alex
roberto: beto
eduardo: lalo
guadalupe: lupe
ignacio: nacho
enrique: kike
jesus: chuy
`;

/**
 * Common given names that have no group above. Two different names that are both known (a group's
 * or this list's) are two people, not a typo: Mark is not a misspelt Mary.
 */
const OTHER_GIVEN_NAMES = `
paul kevin jason ryan gary scott justin brandon tyler kyle ethan noah austin dylan jesse jordan bruce logan wayne randy roy ralph
mason juan luis carlos jorge pedro miguel diego antonio manuel mario ricardo fernando javier sergio raul andre keith craig todd
troy shane derek travis chad cody corey marcus dustin jared brett casey evan ian lance lee luke neil nolan owen pablo quentin ross
seth spencer trevor victor wade warren glenn dale dean earl floyd guy hugh ivan joel leon lloyd marshall miles milton morris oscar
perry rex ruben tyrone wallace aiden caleb connor gavin hunter isaiah jackson jayden julian levi lucas adrian angel chase colin
linda karen lisa nancy michelle donna amy sharon shirley anna brenda heather diane ruth joyce lauren andrea cheryl hannah gloria
jean madison amber doris marilyn danielle marie kayla alexis ines chloe grace alice denise tammy crystal erin april dawn holly
paula sylvia monica vanessa diana rita norma irene ruby leah mia ava ella chelsea courtney jasmine naomi nina rosa lucia maria
carmen ana elena gabriela daniela adriana yolanda gina kara tara dana joy june jill rose renee wanda peggy joanne bonnie
lillie hazel ellie audrey claire stella violet aurora riley layla nora hailey aubrey savannah brooke paige morgan taylor sydney
`;

/** Each group: its canonical name first. */
export const NICKNAME_GROUPS: readonly (readonly string[])[] = GROUPS.trim().split('\n').map((line) => {
  const [canonical, variants = ''] = line.split(':');
  return [canonical!.trim(), ...variants.trim().split(/\s+/).filter(Boolean)];
});

const KEY = new Map<string, string>();
const GROUPS_OF = new Map<string, string[]>();
for (const [canonical] of NICKNAME_GROUPS) KEY.set(canonical!, canonical!);
for (const group of NICKNAME_GROUPS) {
  const canonical = group[0]!;
  for (const name of group) {
    if (!KEY.has(name)) KEY.set(name, canonical);
    const of = GROUPS_OF.get(name) ?? [];
    if (!of.includes(canonical)) of.push(canonical);
    GROUPS_OF.set(name, of);
  }
}

const KNOWN = new Set([...KEY.keys(), ...OTHER_GIVEN_NAMES.trim().split(/\s+/)]);

/** Whether a folded name is a common given name (of a group, or of the list of others). */
export const isKnownGivenName = (folded: string): boolean => KNOWN.has(folded);

/** A folded given name's canonical name ('bill' -> 'william'); a name the table lacks is its own. */
export const canonicalFirstName = (folded: string): string => KEY.get(folded) ?? folded;

/** The canonicals of every group that lists a folded given name, in table order; [] when none does. */
export const nicknameGroups = (folded: string): readonly string[] => GROUPS_OF.get(folded) ?? [];
