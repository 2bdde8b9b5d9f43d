// Made by python -m scoreboard.i18n.build from the catalog: do not edit.
(window.devetkaCatalogs = window.devetkaCatalogs || {})["en"] = {
"language": "en",
"messages": {},
"plural": "n != 1",
"rules": {
"5.1": {
"text": "Nine-ball is played with nine object balls numbered 1 to 9 and the cue ball. On every shot the cue ball must first contact the lowest-numbered ball on the table; balls need not be pocketed in order. A player who pockets one or more balls on a legal shot stays at the table and continues until he misses, fouls, or wins the game by pocketing the 9. After a miss the opponent plays from the position left; after a foul the opponent has cue ball in hand and may start from anywhere on the table. Shots are not called. The match ends when one player has won the required number of games (a race to N).",
"title": "Object of the game"
},
"5.10": {
"text": "The player may place the cue ball anywhere on the playing surface, without touching other balls, and may keep adjusting it until he shoots.",
"title": "Cue ball in hand"
},
"5.11": {
"text": "An unpocketed ball that comes to rest anywhere other than on the playing surface is off the table. Driving a ball off the table is a foul. Jumped balls are not respotted (except the 9), and play continues.",
"title": "Ball driven off the table"
},
"5.12": {
"text": "In an unrefereed match, when a player tries to jump or curve the cue ball over or around an obstructing ball that is not the ball on, it is a foul if that ball moves, however it was moved (hand, cue tip or bridge).",
"title": "Jump and masse fouls"
},
"5.13": {
"text": "A player who fouls on three consecutive shots, with no legal shot between, loses the game. The three fouls must be in one game. A warning must be given between the second and the third foul. A legal shot clears the count. An inning starts when it is legal to shoot and ends on the shot that misses, fouls or wins, or on a foul between shots.",
"title": "Three consecutive fouls"
},
"5.14": {
"text": "If the referee judges that neither player is trying to win the game, he may announce that if the next three consecutive innings bring no visible progress, the game is a draw. The balls are then re-racked and the player who broke the drawn game breaks again.",
"title": "Stalemate"
},
"5.15": {
"text": "A game starts when the cue ball crosses the head string on the break. The 1 must be contacted on a legal break. The game ends at the end of a legal shot that pockets the 9, or when a player loses the game by fouls.",
"title": "End of game"
},
"5.2": {
"text": "The object balls are racked in a diamond, the 1 at the apex on the foot spot, the 9 in the centre, the others in any order, touching as tightly as possible. The game starts with cue ball in hand behind the head string.",
"title": "Racking"
},
"5.3": {
"text": "The winner of the lag chooses who breaks.",
"title": "The break"
},
"5.4": {
"text": "The break follows the rules of any shot, except: the breaker must strike the 1 first and then either pocket a ball or drive at least four object balls to a rail. Pocketing the cue ball, driving it off the table, or failing the requirement above is a foul: the opponent has cue ball in hand anywhere. Driving an object ball off the table on the break is a foul: cue ball in hand for the opponent. A jumped ball is not respotted, except the 9.",
"title": "Legal break"
},
"5.5": {
"text": "On the shot right after a legal break the shooter may play a push out (5.6). A breaker who pockets one or more balls on a legal break keeps shooting until he misses, fouls or wins. When a player misses or fouls, the opponent shoots until he misses, fouls or wins. The game ends when the 9 is pocketed on a legal shot, or when the game is forfeited for a serious infraction.",
"title": "Continuing play"
},
"5.6": {
"text": "The player who takes the first shot after the break may play a push out to move the cue ball to a better position. On a push out the cue ball need not contact any object ball or rail, but all other foul rules apply. The player must announce the push out before shooting; otherwise the shot is an ordinary shot. Balls pocketed on a push out do not count and stay down, except the 9, which is respotted. After a legal push out the opponent chooses: shoot from that position, or pass the shot back to the player who pushed out. A push out is not a foul unless a rule other than 5.8 and 5.9 is broken; an illegal push out is penalised as a foul.",
"title": "Push out"
},
"5.7": {
"text": "A player who fouls ends his inning; balls pocketed on the foul stay down, except the 9, which is respotted. The opponent gets cue ball in hand and may place it anywhere before his first shot. Several fouls on one shot count as one foul.",
"title": "Fouls"
},
"5.8": {
"text": "It is a foul if the first object ball the cue ball contacts is not the lowest-numbered ball on the table.",
"title": "Bad hit"
},
"5.9": {
"text": "It is a foul if no ball is pocketed and neither the cue ball nor any object ball contacts a rail.",
"title": "No rail"
},
"R1": {
"text": "On the break (if the break is legal), by a combination, or off another ball. Pocketed on a foul, on a push out, or driven off the table, the 9 is respotted (on the foot spot; the display tells the players to respot it) and play goes on.",
"title": "The 9 wins wherever it is legally pocketed"
},
"R10": {
"text": "The Croatian 5.9 leaves out the words \"after the cue ball contacts the object ball\" that the English WPA text has. Devetka follows the WPA text: a cushion counts for 5.9 only if it comes after the first contact; where the first contact is not sensed, any cushion of the shot counts.",
"title": "No rail means no rail after contact"
},
"R11": {
"text": "Pocketing the cue ball or driving it off the table is a foul on any shot (5.7), not only on the break (5.4): cue ball in hand for the opponent.",
"title": "A scratch is a foul on every shot"
},
"R2": {
"text": "The player who takes the first shot after a legal break: the breaker if he pocketed a ball, otherwise the opponent. After a foul on the break there is no push out (5.5 says \"after a legal break\"); the incoming player simply has cue ball in hand. A rule option allows it, since WPA editions differ.",
"title": "Who may push out"
},
"R3": {
"text": "After a push out is passed back, the player who pushed out must shoot; a foul on that shot is an ordinary foul.",
"title": "After a pass"
},
"R4": {
"text": "It is a foul (5.11), cue ball in hand for the opponent; the ball stays out, the 9 is respotted.",
"title": "Ball off the table on a non-break shot"
},
"R5": {
"text": "A foul between shots (touching a ball, 5.12) counts as a foul for the three-foul rule and ends the inning.",
"title": "A foul between shots"
},
"R6": {
"text": "The count belongs to the player, clears on his next legal shot, and is reset with each rack. The warning (after the second foul) is shown on the display and published, and it must be visible before the third shot is taken.",
"title": "The three-foul count"
},
"R7": {
"text": "A player (or referee) declares it; the rack is replayed, same breaker; no one scores.",
"title": "Stalemate"
},
"R8": {
"text": "The lag winner chooses who breaks the first rack. Afterwards the winner of a rack breaks the next; alternate breaks is an option. The match is a race to N racks, N per player (handicaps: each player has his own N).",
"title": "The match"
},
"R9": {
"text": "A player may concede a rack or the match.",
"title": "Concession"
},
"TR20": {
"text": "When a match is on the clock, each shot must be begun within its limit, counted from the moment every ball has stopped until the cue tip meets the cue ball: 35 seconds, with a warning 10 seconds before; 60 seconds for the first shot after the break, with no extension. Each player may take one extension of 25 seconds per rack. Running out of time is a standard foul: the opponent has cue ball in hand, and it counts toward three fouls in a row (5.13). The break is not timed, and the clock waits while a push-out choice is pending.",
"title": "The shot clock (WPA Tournament Regulation 20)"
},
"ball_in_hand": {
"text": "Under bar rules, after a scratch (the cue ball pocketed or off the table, or a called scratch) the incoming player has cue ball in hand behind the head string only, as at the break. After any other foul he has it anywhere on the table (5.7).",
"title": "Ball in hand behind the head string (league option)"
},
"break_failure": {
"text": "A break that fails its requirement (and nothing else) is no foul: the incoming player chooses to take the table as it lies (no ball in hand, no push out) or to have the balls racked again and break them himself. A scratch, a ball off the table or a bad hit on the break is still a foul.",
"title": "The choice after a failed break (league option)"
},
"break_requirement": {
"text": "In place of the four balls to a rail of 5.4, the break must send at least three object balls past the head string or into pockets, in any mix; it is met whenever two balls are pocketed. The 1 must still be hit first. No sensor sees the head string: a player calls an illegal break when the rule was not met.",
"title": "The 3-point rule (league option)"
},
"nine_on_break": {
"text": "Under bar rules, the 9 pocketed on a legal break does not win the rack: it is put back on the foot spot and the breaker shoots on. Pocketed later on a legal shot, it wins.",
"title": "The 9 on the break spotted (league option)"
},
"push_outs": {
"text": "Under APA and bar rules no push out is played after the break (5.6 does not apply).",
"title": "No push outs (league option)"
},
"scoring": {
"text": "Each ball pocketed on a legal shot scores for its shooter: 1 point for the 1 to the 8, 2 for the 9, 10 a rack. Balls pocketed on a foul score nothing and are dead, and so are the balls left on the table when the 9 drops, when a rack is conceded or drawn. The match ends the moment a player reaches his target, set by his skill level (14, 19, 25, 31, 38, 46, 55, 65 or 75 for skill levels 1 to 9). There are no push outs and no three-foul rule.",
"title": "APA 9-ball points (league option)"
}
}
};
